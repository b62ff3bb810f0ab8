import { uniqueRef } from './fixtures.ts';
import { call, type ApiResponse, type TestGateway } from './gateway.ts';

/** A bank transfer charge request (docs/integrate/api-reference.md#bank-transfer-charges); override any field. */
export function bankTransferBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payment_method: 'mobile_bank_transfer',
    amount: 25000,
    currency: 'MWK',
    charge_id: uniqueRef('bt'),
    email: 'chisomo@example.com',
    first_name: 'Chisomo',
    last_name: 'Banda',
    ...overrides,
  };
}

export const initializeBankTransfer = (gw: TestGateway, key: string, body: unknown): Promise<ApiResponse> =>
  call(gw.url, '/direct-charge/payments/initialize', { key, body });

export const bankTransferDetails = (
  gw: TestGateway,
  key: string | null,
  chargeId: string,
  transactionStatus?: string,
): Promise<ApiResponse> =>
  call(
    gw.url,
    `/direct-charge/transactions/${chargeId}/details${transactionStatus ? `?transaction_status=${transactionStatus}` : ''}`,
    { key },
  );
