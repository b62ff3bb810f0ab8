import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Log, DirectFields, Name, NullableString, TypedRecord } from '../core/charge-schemas.ts';
import { SuccessEnvelope } from '../http/envelope.ts';
import { PAYOUT_BANK_UUIDS, PAYOUT_CURRENCIES } from './banks.ts';

/** `transaction_status`: the sandbox outcome a test payout asks for. */
const ChosenOutcome = Type.Optional(
  Type.Unsafe<'successful' | 'failed'>({ type: 'string', enum: ['successful', 'failed'] }),
);

export const InitializePayoutBody = Type.Object({ ...DirectFields, transaction_status: ChosenOutcome });

const PayoutCurrency = Type.Unsafe<(typeof PAYOUT_CURRENCIES)[number]>({
  type: 'string',
  enum: [...PAYOUT_CURRENCIES],
});

export const InitializeBankPayoutBody = Type.Object(
  {
    payout_method: Type.Unsafe<'bank_transfer'>({ type: 'string', enum: ['bank_transfer'] }),
    bank_uuid: Type.String({ enum: PAYOUT_BANK_UUIDS }),
    amount: DirectFields.amount,
    charge_id: DirectFields.charge_id,
    bank_account_name: Name,
    // Its form depends on the bank (digits, or a wallet's mobile number): the service checks it and says which.
    bank_account_number: Type.String({ minLength: 1, maxLength: 32 }),
    email: DirectFields.email,
    first_name: DirectFields.first_name,
    last_name: DirectFields.last_name,
    currency: Type.Optional(PayoutCurrency),
    transaction_status: ChosenOutcome,
  },
  {
    examples: [
      {
        payout_method: 'bank_transfer',
        bank_uuid: '82310dd1-ec9b-4fe7-a32c-2f262ef08681',
        amount: 10000,
        charge_id: 'PAYOUT-2024-0001',
        bank_account_name: 'Madalitso Kamwendo',
        bank_account_number: '1001000010',
        email: 'accounts@mango.example',
      },
    ],
  },
);

export const SupportedBanksQuery = Type.Object({ currency: Type.Optional(PayoutCurrency) });

export const BankPayoutListQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })) });

const RecipientAccountDetails = Type.Object({
  bank_uuid: Type.String(),
  bank_name: Type.String(),
  account_name: Type.String(),
  account_number: Type.String(),
});

const BankPayoutFields = {
  ...TypedRecord,
  trace_id: NullableString,
  recipient_account_details: RecipientAccountDetails,
};

const EXAMPLE_PAYOUT = {
  amount: 10000,
  charge_id: 'PAYOUT-2024-0001',
  ref_id: '54438943842',
  trans_id: null,
  first_name: null,
  last_name: null,
  email: null,
  status: 'pending',
  mobile: '0',
  attempts: 1,
  currency: 'MWK',
  mode: 'sandbox',
  created_at: '2024-06-01T09:30:00.000000Z',
  completed_at: null,
  mobile_money: null,
  type: 'API Payout',
  event_type: 'api.payout',
  transaction_charges: { currency: 'MWK', amount: '100.00' },
  trace_id: null,
  recipient_account_details: {
    bank_uuid: '82310dd1-ec9b-4fe7-a32c-2f262ef08681',
    bank_name: 'National Bank of Malawi',
    account_name: 'Madalitso Kamwendo',
    account_number: '1001000010',
  },
};

const EXAMPLE_ENDED = {
  ...EXAMPLE_PAYOUT,
  status: 'success',
  trans_id: '7f1c2a9e-5b4d-4f0e-9a51-0c6de2a7b3f4',
  completed_at: '2024-06-01T09:30:03.000000Z',
};

/** A response schema with a whole example answer, which the API document shows for its route. */
const withExample = <T extends TSchema>(schema: T, example: Static<T>): T => ({ ...schema, examples: [example] });

export const BankPayoutResponse = withExample(
  SuccessEnvelope(Type.Object({ transaction: Type.Object(BankPayoutFields) })),
  {
    status: 'success',
    message: 'Payout request submitted successfully.',
    data: { transaction: EXAMPLE_PAYOUT },
  },
);

export const BankPayoutDetailsResponse = withExample(
  SuccessEnvelope(Type.Object({ ...BankPayoutFields, logs: Type.Array(Log) }), 'successful'),
  {
    status: 'successful',
    message: 'Transaction details retrieved successfully',
    data: {
      ...EXAMPLE_ENDED,
      logs: [
        {
          type: 'log',
          message: 'Payout requested to National Bank of Malawi account ending 0010 (Madalitso Kamwendo)',
          created_at: '2024-06-01T09:30:00.000000Z',
        },
        { type: 'log', message: 'Payout completed', created_at: '2024-06-01T09:30:03.000000Z' },
      ],
    },
  },
);

export const BankPayoutListResponse = withExample(
  SuccessEnvelope(
    Type.Object({
      current_page: Type.Integer(),
      total_pages: Type.Integer(),
      per_page: Type.Integer(),
      next_page_url: NullableString,
      data: Type.Array(Type.Object(BankPayoutFields)),
    }),
  ),
  {
    status: 'success',
    message: 'Transactions retrieved successfully.',
    data: {
      current_page: 1,
      total_pages: 3,
      per_page: 20,
      next_page_url: 'https://pay.mango.example/direct-charge/payouts?page=2',
      data: [EXAMPLE_ENDED],
    },
  },
);

export const SupportedBanksResponse = withExample(
  SuccessEnvelope(Type.Array(Type.Object({ uuid: Type.String(), name: Type.String() }))),
  {
    status: 'success',
    message: 'Retrieved successfully.',
    data: [
      { uuid: '82310dd1-ec9b-4fe7-a32c-2f262ef08681', name: 'National Bank of Malawi' },
      { uuid: '20be6c20-adeb-4b5b-a7ba-0769820df4fb', name: 'Airtel Money' },
    ],
  },
);
