import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { completeDirectCharge } from '../../src/payments/direct-charges.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { recordDirectPayment } from './direct-charges.ts';
import { uniqueRef } from './fixtures.ts';
import { call, type ApiResponse, type TestGateway } from './gateway.ts';
import { AIRTEL_REF, chargeBody, eventually, initializeCharge, TEST_NUMBERS, verify } from './mobile-money.ts';

/**
 * The refund routes (docs/integrate/api-reference.md#refunds) of the gateway a `useTestGateway`
 * context holds once its suite has started, with a key.
 */
export function refundRoutes(ctx: { readonly gw: TestGateway }) {
  return {
    refund: (key: string | null, body: unknown): Promise<ApiResponse> => call(ctx.gw.url, '/refunds', { key, body }),
    cardRefund: (key: string | null, chargeId: string, body?: unknown): Promise<ApiResponse> =>
      call(ctx.gw.url, `/charge-card/refund/${chargeId}`, {
        key,
        method: 'POST',
        ...(body !== undefined && { body }),
      }),
    readRefund: (key: string | null, refundId: string): Promise<ApiResponse> =>
      call(ctx.gw.url, `/refunds/${refundId}`, { key }),
    listRefunds: (key: string | null, query = ''): Promise<ApiResponse> =>
      call(ctx.gw.url, `/refunds${query}`, { key }),
  };
}

/** Waits until the settler has ended the refund; answers it as GET /refunds/{id} shows it. */
export function refundEnded(gw: TestGateway, key: string, refundId: string): Promise<Record<string, unknown>> {
  return eventually(`refund ${refundId} to end`, async () => {
    const res = await refundRoutes({ gw }).readRefund(key, refundId);
    assert.equal(res.status, 200, res.text);
    return res.body.data.status === 'pending' ? null : res.body.data;
  });
}

/**
 * What the refund's reserve took from each of the merchant's accounts and set aside, by kind:
 * read from the ledger, so that it holds however soon the settler completes or fails the refund.
 * Empty while it waits for the balance.
 */
export async function reserveOf(gw: TestGateway, refundId: string): Promise<Record<string, number>> {
  const rows = await gw.gateway.database.db
    .selectFrom('ledger_entries')
    .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .innerJoin('refunds', 'refunds.id', 'ledger_transactions.reference')
    .select(['ledger_accounts.kind', 'ledger_entries.amount_minor'])
    .where('ledger_transactions.kind', '=', 'refund_reserve')
    .where('refunds.refund_id', '=', refundId)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.amount_minor)]));
}

/**
 * A direct mobile money charge of `amount`, made successful at once (`transaction_status=success`);
 * its collection, net of the 3 % fee, is credited as the gateway's TEST_SETTLEMENT says. Its charge_id.
 */
export async function paidCharge(
  gw: TestGateway,
  merchant: MerchantCredentials,
  amount = 1000,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const body = chargeBody({ amount, ...overrides });
  assert.equal((await initializeCharge(gw, merchant.test_secret_key, body)).status, 201);
  assert.equal(
    (await verify(gw, merchant.test_secret_key, String(body.charge_id), 'success')).body.data.status,
    'success',
  );
  return String(body.charge_id);
}

/**
 * A live mobile money charge that succeeded, recorded through the payment services (the sandbox
 * takes only test keys and no live operator is connected in this build); answers its charge_id.
 */
export async function paidLiveCharge(gw: TestGateway, merchant: MerchantCredentials, amount: number): Promise<string> {
  const request = {
    mobile: TEST_NUMBERS.airtelSuccess,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount,
    charge_id: uniqueRef('live'),
    email: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Banda',
  };
  const charge = await recordDirectPayment(gw.gateway.database, { merchantId: merchant.id, mode: 'live' }, request);
  assert.ok(
    await completeDirectCharge(
      paymentDeps(loadConfig({}), gw.gateway.database),
      charge,
      { status: 'success', transId: `live-${charge.ref_id}` },
      Date.now(),
    ),
  );
  return request.charge_id;
}
