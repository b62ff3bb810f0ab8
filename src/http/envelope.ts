import { Type, type ObjectOptions, type TSchema } from '@sinclair/typebox';

/** `{status, message, data}`: the success envelope every JSON endpoint answers with (docs/integrate/api-reference.md#envelope); `options` may carry `examples` for the API document. */
export function SuccessEnvelope<T extends TSchema>(data: T, status = 'success', options: ObjectOptions = {}) {
  return Type.Object(
    {
      status: Type.Literal(status),
      message: Type.String(),
      data,
    },
    options,
  );
}

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('failed'),
    message: Type.Union([Type.String(), Type.Record(Type.String(), Type.Array(Type.String()))]),
    data: Type.Null(),
  },
  { $id: 'ErrorEnvelope' },
);

export const errorResponses = {
  400: Type.Ref(ErrorEnvelope),
  401: Type.Ref(ErrorEnvelope),
  404: Type.Ref(ErrorEnvelope),
};

export function success<T>(message: string, data: T) {
  return { status: 'success' as const, message, data };
}
