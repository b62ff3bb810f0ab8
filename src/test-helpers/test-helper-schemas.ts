import { Type } from '@sinclair/typebox';
import type { FailureCode } from '../connectors/provider.ts';
import { ErrorEnvelope, errorResponses, SuccessEnvelope } from '../http/envelope.ts';

/** The failure codes a customer's, operator's or issuer's answer can carry (not Lipira's own, such as `superseded`). */
const ANSWERED_FAILURES = [
  'declined',
  'insufficient_funds',
  'timed_out',
  'issuer_error',
  'wrong_otp',
  'wrong_pin',
  'rejected_by_customer',
  'limit_exceeded',
] as const satisfies readonly FailureCode[];

export const CompleteBody = Type.Object(
  {
    status: Type.Unsafe<'success' | 'failed'>({
      type: 'string',
      enum: ['success', 'failed'],
      description: 'How the customer (or the card issuer) answered.',
    }),
    failure_code: Type.Optional(
      Type.Unsafe<(typeof ANSWERED_FAILURES)[number]>({
        type: 'string',
        enum: [...ANSWERED_FAILURES],
        description: 'Why it failed, as verification and the webhook then show it (with `status: failed` only).',
      }),
    ),
  },
  { examples: [{ status: 'failed', failure_code: 'insufficient_funds' }] },
);

export const ReceiveBody = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Whole kwacha transferred: the exact amount pays the charge, any other fails it and goes back.',
    }),
  },
  { examples: [{ amount: 25000 }] },
);

export const SettlementRunResponse = SuccessEnvelope(
  Type.Object({
    settled_balances: Type.Integer({ description: 'Collection balances (one per currency) moved to main balances.' }),
  }),
);

/** Every helper may also answer 409: the record is not in the state the helper acts on. */
export const helperErrorResponses = { ...errorResponses, 409: Type.Ref(ErrorEnvelope) };
