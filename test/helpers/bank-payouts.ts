import type { Charge } from '../../src/core/charge-repository.ts';
import { uniqueRef } from './fixtures.ts';
import { call, type ApiResponse, type TestGateway } from './gateway.ts';

/** National Bank of Malawi in the banks list: PayChangu's own uuid for it. */
export const NBM_UUID = '82310dd1-ec9b-4fe7-a32c-2f262ef08681';

/** A bank payout request to an NBM account; override any field. */
export function bankPayoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payout_method: 'bank_transfer',
    bank_uuid: NBM_UUID,
    amount: 1000,
    charge_id: uniqueRef('bank'),
    bank_account_name: 'Madalitso Kamwendo',
    bank_account_number: '1001000010',
    email: 'accounts@mango.example',
    first_name: 'Madalitso',
    last_name: 'Kamwendo',
    ...overrides,
  };
}

/** What a bank payout record shows (docs/integrate/api-reference.md#bank-payouts), sorted. */
export const BANK_PAYOUT_KEYS = [
  'amount',
  'attempts',
  'charge_id',
  'completed_at',
  'created_at',
  'currency',
  'email',
  'event_type',
  'first_name',
  'last_name',
  'mobile',
  'mobile_money',
  'mode',
  'recipient_account_details',
  'ref_id',
  'status',
  'trace_id',
  'trans_id',
  'transaction_charges',
  'type',
];

export const initializeBankPayout = (gw: TestGateway, key: string, body: unknown): Promise<ApiResponse> =>
  call(gw.url, '/direct-charge/payouts/initialize', { key, body });
export const bankPayoutDetails = (gw: TestGateway, key: string | null, chargeId: string): Promise<ApiResponse> =>
  call(gw.url, `/direct-charge/payouts/${chargeId}/details`, { key });
export const bankPayoutList = (gw: TestGateway, key: string | null, query = ''): Promise<ApiResponse> =>
  call(gw.url, `/direct-charge/payouts${query}`, { key });

/** The recipient rows stored for the merchant's payouts with this charge_id, in every mode. */
export function recipientRows(
  gw: TestGateway,
  merchantId: string,
  chargeId: string,
): Promise<Array<{ charge_ref: string }>> {
  return gw.gateway.database.db
    .selectFrom('payout_recipients')
    .innerJoin('charges', 'charges.id', 'payout_recipients.charge_ref')
    .select('payout_recipients.charge_ref')
    .where('charges.merchant_id', '=', merchantId)
    .where('charges.charge_id', '=', chargeId)
    .execute();
}

/** A payout's charge row with its recipient as stored. */
export function storedBankPayout(gw: TestGateway, charge: Charge) {
  return gw.gateway.database.db
    .selectFrom('payout_recipients')
    .selectAll()
    .where('charge_ref', '=', charge.id)
    .executeTakeFirstOrThrow();
}
