import { Type } from '@sinclair/typebox';
import { Reference } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';

const Amount = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Reason = Type.String({ maxLength: 500 });
/** Optional: a refund is made in its payment's currency, and one naming another is refused rather than made in that one. */
const Currency = Type.Optional(Type.String({ maxLength: 16, description: "The payment's currency, when given." }));
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `POST /charge-card/refund/{charge_id}`: no body for all that is left, or part of it. */
export const CardRefundBody = Type.Object(
  { amount: Type.Optional(Amount), currency: Currency, reason: Type.Optional(Reason) },
  {
    description: 'May be left out: no body (or `{}`) refunds all that is left of the payment.',
    examples: [{ amount: 400, reason: 'One of two items returned' }],
  },
);

/** `POST /refunds`: the payment by `charge_id` or by its checkout `tx_ref` (one of them), all or part of it. */
export const RefundBody = Type.Object(
  {
    charge_id: Type.Optional(Reference),
    tx_ref: Type.Optional(Reference),
    amount: Type.Optional(Amount),
    currency: Currency,
    reason: Type.Optional(Reason),
  },
  {
    examples: [
      { tx_ref: 'order-1001', amount: 400, reason: 'One of two items returned' },
      { charge_id: 'charge-2001' },
    ],
  },
);

export const RefundChargeParams = Type.Object({ charge_id: Type.String() });
export const RefundIdParams = Type.Object({ refund_id: Type.String() });
export const RefundListQuery = Type.Object({
  charge_id: Type.Optional(Type.String({ maxLength: 100 })),
  tx_ref: Type.Optional(Type.String({ maxLength: 100 })),
});

const EXAMPLE = {
  refund_id: 'rf_7Qm2JcX0aLk4TsVw9EyB',
  charge_id: 'ch_3kV9xQpT2mNw8LzR1sYd',
  amount: 400,
  currency: 'MWK',
  status: 'pending',
  reason: 'One of two items returned',
  pending_reason: null,
  trans_id: null,
  created_at: '2025-01-23T17:03:28.123000Z',
  completed_at: null,
};

/** A refund as merchants read it (docs/integrate/api-reference.md#refunds). */
const RefundRecord = Type.Object({
  refund_id: Type.String(),
  charge_id: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  status: Type.Unsafe<'pending' | 'success' | 'failed'>({ type: 'string', enum: ['pending', 'success', 'failed'] }),
  reason: NullableString,
  pending_reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why a pending refund waits for the balance before it goes out (the balance does not cover it yet, or earlier refunds wait first); null when it does not wait.',
  }),
  /** The operator's id for the refund once it succeeded (for part of an Airtel Money payment, its disbursement's). */
  trans_id: NullableString,
  created_at: Type.String(),
  completed_at: NullableString,
});

/** A refund just asked for (`pending` until its provider answers), or one read back. */
export const RefundCreatedResponse = SuccessEnvelope(RefundRecord, 'success', {
  examples: [{ status: 'success', message: 'Refund initiated successfully.', data: EXAMPLE }],
});
export const RefundResponse = SuccessEnvelope(RefundRecord, 'success', {
  examples: [
    {
      status: 'success',
      message: 'Refund retrieved successfully.',
      data: {
        ...EXAMPLE,
        status: 'success',
        trans_id: 'DB260123.1703.A00001',
        completed_at: '2025-01-23T17:03:31.456000Z',
      },
    },
  ],
});
export const RefundListResponse = SuccessEnvelope(Type.Array(RefundRecord), 'success', {
  examples: [
    {
      status: 'success',
      message: 'Refunds retrieved successfully.',
      data: [
        {
          ...EXAMPLE,
          status: 'success',
          trans_id: 'DB260123.1703.A00001',
          completed_at: '2025-01-23T17:03:31.456000Z',
        },
      ],
    },
  ],
});
