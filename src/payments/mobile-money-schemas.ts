import { Type, type Static } from '@sinclair/typebox';
import { Authorization, Log, Reference, Refunded } from '../checkout/checkout-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';
import { OPERATOR_REF_IDS } from './operators.ts';

export const Name = Type.String({ minLength: 1, maxLength: 255 });
export const NullableString = Type.Union([Type.String(), Type.Null()]);

export const DirectFields = {
  mobile: Type.String({ format: 'malawi-mobile', maxLength: 32 }),
  mobile_money_operator_ref_id: Type.String({ enum: OPERATOR_REF_IDS }),
  amount: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  charge_id: Reference,
  email: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
  first_name: Type.Optional(Name),
  last_name: Type.Optional(Name),
  /** Optional (MWK); any other is refused by name (`refuseOtherThanKwacha`), since the operators move MWK only. */
  currency: Type.Optional(Type.String({ maxLength: 16 })),
};

export const InitializeChargeBody = Type.Object(DirectFields);
export type InitializeChargeInput = Static<typeof InitializeChargeBody>;

export const ChargeIdParams = Type.Object({ charge_id: Type.String() });
export const VerifyQuery = Type.Object({
  transaction_status: Type.Optional(
    Type.Unsafe<'success' | 'pending' | 'failed'>({ type: 'string', enum: ['success', 'pending', 'failed'] }),
  ),
});
export const BalanceQuery = Type.Object({
  currency: Type.Optional(Type.Unsafe<'MWK' | 'USD' | 'GBP'>({ type: 'string', enum: ['MWK', 'USD', 'GBP'] })),
});

const MobileMoney = Type.Union([
  Type.Object({ name: Type.String(), ref_id: Type.String(), country: Type.String() }),
  Type.Null(),
]);

const CommonRecord = {
  amount: Type.Number(),
  charge_id: Type.String(),
  ref_id: Type.String(),
  trans_id: NullableString,
  first_name: NullableString,
  last_name: NullableString,
  email: NullableString,
  status: Type.String(),
  mobile: NullableString,
  attempts: Type.Integer(),
  currency: Type.String(),
  mode: Type.String(),
  created_at: Type.String(),
  completed_at: NullableString,
  mobile_money: MobileMoney,
};

export const TypedRecord = {
  ...CommonRecord,
  type: Type.String(),
  event_type: Type.String(),
  transaction_charges: Type.Object({ currency: Type.String(), amount: Type.String() }),
};

export const ChargeRecordResponse = SuccessEnvelope(Type.Object(TypedRecord));
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

export const BalanceResponse = SuccessEnvelope(
  Type.Object({
    environment: Type.String(),
    currency: Type.String(),
    main_balance: Type.String(),
    collection_balance: Type.Number(),
  }),
);
