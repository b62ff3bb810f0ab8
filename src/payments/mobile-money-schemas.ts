import { Type, type Static } from '@sinclair/typebox';
import { Authorization, DirectFields, Log, NullableString, Refunded, TypedRecord } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';

export const InitializeChargeBody = Type.Object(DirectFields);
export type InitializeChargeInput = Static<typeof InitializeChargeBody>;

export const VerifyQuery = Type.Object({
  transaction_status: Type.Optional(
    Type.Unsafe<'success' | 'pending' | 'failed'>({ type: 'string', enum: ['success', 'pending', 'failed'] }),
  ),
});
export const VerifiedRecord = { ...TypedRecord, ...Refunded, authorization: Authorization, logs: Type.Array(Log) };

export const VerifyResponse = SuccessEnvelope(Type.Object(VerifiedRecord), 'successful');
/** Details: what verification shows, for a charge or a payout, plus `trace_id` (null: Lipira has none yet). */
export const DetailsResponse = SuccessEnvelope(Type.Object({ ...VerifiedRecord, trace_id: NullableString }));

export const OperatorsResponse = SuccessEnvelope(
  Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      ref_id: Type.String(),
      short_code: Type.String(),
      logo: Type.Null(),
      supports_withdrawals: Type.Boolean(),
      supported_country: Type.Object({ name: Type.String(), currency: Type.String() }),
    }),
  ),
);
