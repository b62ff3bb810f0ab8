import { Type } from '@sinclair/typebox';
import { SuccessEnvelope } from '../http/envelope.ts';
import { OPERATOR_REF_IDS } from './operators.ts';

/** The schemas every money feature's records share: references, the charge record and its logs. */

/**
 * References travel unencoded in paths, so they are limited to URL-safe characters, and may
 * not be only dots (`.` and `..` would be read as path steps).
 */
export const Reference = Type.String({ minLength: 1, maxLength: 100, pattern: '^(?!\\.+$)[A-Za-z0-9_.-]+$' });
export const REFERENCE_PATTERN = /^(?!\.+$)[A-Za-z0-9_.-]{1,100}$/;
export const Name = Type.String({ minLength: 1, maxLength: 255 });
export const NullableString = Type.Union([Type.String(), Type.Null()]);

export const Authorization = Type.Object({
  channel: NullableString,
  card_number: NullableString,
  expiry: NullableString,
  brand: NullableString,
  provider: NullableString,
  mobile_number: NullableString,
  completed_at: NullableString,
});

export const Log = Type.Object({ type: Type.String(), message: Type.String(), created_at: Type.String() });

/** What verification shows of refunds: the amount given back (pending or done) and `full`, `partial` or null. */
export const Refunded = {
  refunded_amount: Type.Number(),
  refund_status: Type.Union([
    Type.Unsafe<'full' | 'partial'>({ type: 'string', enum: ['full', 'partial'] }),
    Type.Null(),
  ]),
};

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

export const ChargeIdParams = Type.Object({ charge_id: Type.String() });

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
