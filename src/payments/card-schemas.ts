import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Reference, Name } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';
import { VerifiedRecord } from './mobile-money-schemas.ts';

/** A response schema with a whole example answer, which the API document shows for its route. */
const withExample = <T extends TSchema>(schema: T, example: Static<T>): T => ({ ...schema, examples: [example] });

/**
 * `currency` is any short text here and checked by name in card-charges.ts, and the card's fields
 * are read by `readCard`, so that each refusal says what is wrong with which field.
 */
export const CardChargeBody = Type.Object(
  {
    card_number: Type.String({ maxLength: 32 }),
    expiry: Type.String({ maxLength: 16 }),
    cvv: Type.String({ maxLength: 8 }),
    cardholder_name: Name,
    amount: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    currency: Type.String({ maxLength: 16 }),
    charge_id: Reference,
    redirect_url: Type.String({ format: 'http-url', maxLength: 2048 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
  },
  {
    examples: [
      {
        card_number: '4242 4242 4242 4242',
        expiry: '12/30',
        cvv: '123',
        cardholder_name: 'Chikondi Banda',
        amount: 2500,
        currency: 'MWK',
        charge_id: 'CARD-2024-0001',
        redirect_url: 'https://shop.example/orders/1001/paid',
        email: 'chikondi@example.com',
      },
    ],
  },
);
export type CardChargeInput = Static<typeof CardChargeBody>;

/** No envelope (docs/integrate/api-reference.md#card-charges): what PayChangu's clients read. */
export const CardChargeResponse = withExample(
  Type.Object({
    success: Type.Literal(true),
    requires_3ds_auth: Type.Boolean(),
    orderReference: Type.String(),
    '3ds_auth_link': Type.String(),
  }),
  {
    success: true,
    requires_3ds_auth: true,
    orderReference: '00b1b3d0-1821-48ec-8136-4904ded5923b',
    '3ds_auth_link': 'https://pay.example/3ds/auth?reference=00b1b3d0-1821-48ec-8136-4904ded5923b',
  },
);

const EXAMPLE_AUTHORIZATION = {
  channel: 'Card',
  card_number: '424242******4242',
  expiry: '2030-12',
  brand: 'VISA',
  provider: null,
  mobile_number: null,
  completed_at: '2024-06-01T09:31:12.000000Z',
};

/** The usual envelope (`status: "success"`): PayChangu's clients model card verification so, unlike mobile money's `successful`. */
export const CardVerifyResponse = withExample(SuccessEnvelope(Type.Object(VerifiedRecord)), {
  status: 'success',
  message: 'Payment authorized and completed successfully.',
  data: {
    amount: 2500,
    charge_id: 'CARD-2024-0001',
    ref_id: '48213370915',
    trans_id: '5d0f3c1e-8a2b-4c7d-9e6f-1a2b3c4d5e6f',
    first_name: 'Chikondi',
    last_name: 'Banda',
    email: 'chikondi@example.com',
    status: 'success',
    mobile: null,
    attempts: 1,
    currency: 'MWK',
    mode: 'sandbox',
    created_at: '2024-06-01T09:30:40.000000Z',
    completed_at: '2024-06-01T09:31:12.000000Z',
    mobile_money: null,
    type: 'Direct API Payment',
    event_type: 'api.charge.payment',
    transaction_charges: { currency: 'MWK', amount: '75.00' },
    refunded_amount: 0,
    refund_status: null,
    authorization: EXAMPLE_AUTHORIZATION,
    logs: [
      {
        type: 'log',
        message: 'Card payment requested with VISA 424242******4242: waiting for 3-D Secure',
        created_at: '2024-06-01T09:30:40.000000Z',
      },
      { type: 'log', message: 'Payment completed', created_at: '2024-06-01T09:31:12.000000Z' },
    ],
  },
});

export const ThreeDsQuery = Type.Object({ reference: Type.Optional(Type.String()) });
