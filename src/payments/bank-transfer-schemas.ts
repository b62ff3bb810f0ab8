import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Log, Reference, Name, NullableString } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';

/**
 * `payment_method` and `currency` are any text here and refused by name in bank-transfers.ts, so
 * that a client sending another method or currency reads what this route takes.
 */
export const InitializeBankTransferBody = Type.Object(
  {
    payment_method: Type.String({ maxLength: 64, description: 'Must be `mobile_bank_transfer`.' }),
    amount: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    currency: Type.String({ maxLength: 16, description: 'Must be `MWK`.' }),
    charge_id: Reference,
    email: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
    first_name: Type.Optional(Name),
    last_name: Type.Optional(Name),
    mobile: Type.Optional(Type.String({ maxLength: 32 })),
    create_permanent_account: Type.Optional(
      Type.Unknown({ description: 'Accepted and ignored: every account is one-time, expiring after an hour.' }),
    ),
  },
  {
    examples: [
      {
        payment_method: 'mobile_bank_transfer',
        amount: 25000,
        currency: 'MWK',
        charge_id: 'ORDER-2024-0042',
        email: 'chisomo@example.com',
        first_name: 'Chisomo',
        last_name: 'Banda',
      },
    ],
  },
);

export const TransferDetailsQuery = Type.Object({
  transaction_status: Type.Optional(
    Type.Unsafe<'successful' | 'success' | 'failed' | 'pending'>({
      type: 'string',
      enum: ['successful', 'success', 'failed', 'pending'],
      description: 'Test keys only: settles a pending charge to this outcome.',
    }),
  ),
});

const AccountDetails = Type.Object({
  bank_name: Type.String(),
  account_number: Type.String(),
  account_name: Type.String(),
  account_expiration_timestamp: Type.Integer(),
});

const TransferFields = {
  charge_id: Type.String(),
  ref_id: Type.String(),
  trans_id: NullableString,
  currency: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  trace_id: NullableString,
  status: Type.String(),
  mobile: Type.String(),
  attempts: Type.Integer(),
  mode: Type.String(),
  created_at: Type.String(),
  event_type: Type.String(),
  transaction_charges: Type.Object({ currency: Type.String(), amount: Type.String() }),
};

const PayerAuthorization = Type.Object({
  channel: Type.String(),
  card_number: Type.Null(),
  expiry: Type.Null(),
  brand: Type.Null(),
  provider: Type.Null(),
  mobile_number: Type.Null(),
  payer_bank_uuid: Type.Null(),
  payer_bank: NullableString,
  payer_account_number: NullableString,
  payer_account_name: NullableString,
  completed_at: NullableString,
});

const withExample = <T extends TSchema>(schema: T, example: Static<T>): T => ({ ...schema, examples: [example] });

const EXAMPLE_ACCOUNT = {
  bank_name: 'Lipira Sandbox Bank',
  account_number: '4829163057',
  account_name: 'Lipira / Mango Shop',
  account_expiration_timestamp: 1717237800,
};
const EXAMPLE_TRANSFER = {
  charge_id: 'ORDER-2024-0042',
  ref_id: '48213950671',
  trans_id: null,
  currency: 'MWK',
  amount: 25000,
  type: 'Direct API Payment',
  trace_id: null,
  status: 'pending',
  mobile: '0',
  attempts: 1,
  mode: 'sandbox',
  created_at: '2024-06-01T09:30:00.000000Z',
  event_type: 'api.charge.payment',
  transaction_charges: { currency: 'MWK', amount: '0.00' },
};

export const InitializeBankTransferResponse = withExample(
  SuccessEnvelope(
    Type.Object({
      payment_account_details: AccountDetails,
      transaction: Type.Object({ ...TransferFields, authorization: Type.Object({ channel: Type.String() }) }),
    }),
  ),
  {
    status: 'success',
    message: 'Payment initialized successfully.',
    data: {
      payment_account_details: EXAMPLE_ACCOUNT,
      transaction: { ...EXAMPLE_TRANSFER, authorization: { channel: 'Mobile Bank Transfer' } },
    },
  },
);

export const BankTransferDetailsResponse = withExample(
  SuccessEnvelope(
    Type.Object({
      transaction: Type.Object({
        ...TransferFields,
        completed_at: NullableString,
        failure_reason: NullableString,
        failure_code: NullableString,
        authorization: PayerAuthorization,
        logs: Type.Array(Log),
      }),
      payment_account_details: AccountDetails,
    }),
  ),
  {
    status: 'success',
    message: 'Transaction retrieved successfully.',
    data: {
      transaction: {
        ...EXAMPLE_TRANSFER,
        status: 'success',
        trans_id: '7f1c2a9e-5b4d-4f0e-9a51-0c6de2a7b3f4',
        transaction_charges: { currency: 'MWK', amount: '750.00' },
        completed_at: '2024-06-01T09:34:12.000000Z',
        failure_reason: null,
        failure_code: null,
        authorization: {
          channel: 'Mobile Bank Transfer',
          card_number: null,
          expiry: null,
          brand: null,
          provider: null,
          mobile_number: null,
          payer_bank_uuid: null,
          payer_bank: 'National Bank of Malawi',
          payer_account_number: '******4321',
          payer_account_name: 'Test Payer',
          completed_at: '2024-06-01T09:34:12.000000Z',
        },
        logs: [
          {
            type: 'log',
            message:
              'Bank transfer requested: account 4829163057 at Lipira Sandbox Bank opened until 2024-06-01T10:30:00.000Z',
            created_at: '2024-06-01T09:30:00.000000Z',
          },
          { type: 'log', message: 'Payment completed', created_at: '2024-06-01T09:34:12.000000Z' },
        ],
      },
      payment_account_details: EXAMPLE_ACCOUNT,
    },
  },
);
