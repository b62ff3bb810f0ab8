import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { settleCollections } from '../../src/ledger/ledger-service.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import type { Charge } from '../../src/core/charge-repository.ts';
import { startUpstreamPaychangu, type UpstreamPaychangu } from '../fakes/upstream-paychangu.ts';
import { bankPayoutBody } from '../helpers/bank-payouts.ts';
import { bankTransferBody, bankTransferDetails, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  chargeBody,
  chargeRows,
  eventCount,
  eventually,
  fundMainBalance,
  initializeCharge,
  TEST_NUMBERS,
  TNM_REF,
  verify,
} from '../helpers/mobile-money.ts';

/**
 * The channels Lipira has no direct operator for, through the operator's own merchant account at
 * an upstream PayChangu (a second Lipira in test mode). The settler's first ask is an hour away,
 * so everything that settles here was settled by the upstream's webhooks arriving at
 * `/callbacks/paychangu`, each confirmed by asking the upstream.
 */
for (const kind of DATABASE_KINDS) {
  describe(`live channels through an upstream PayChangu on ${kind}`, () => {
    let upstream: UpstreamPaychangu;
    let gw: TestGateway;
    let merchant: MerchantCredentials;

    before(async () => {
      // The upstream's sandbox settles a second after the ask. A bank transfer's account is opened
      // at the upstream before our record is written (the record holds the account), so an upstream
      // settling within milliseconds could call back about a reference we have not yet stored: its
      // callback is then answered as unknown and the settler's first ask, an hour away here, would
      // be the one to find the payment. A real payer's transfer takes minutes.
      upstream = await startUpstreamPaychangu({ SANDBOX_MOBILE_DELAY: '1s' });
      gw = await startTestGateway(kind, {
        ...upstream.liveEnv('tnm:paychangu,bank:paychangu'),
        LIVE_SYNC_FIRST: '1h',
        LIVE_SYNC_MAX: '1h',
        WORKER_INTERVAL: '50ms',
      });
      await updateMerchantSettings(
        upstream.gw.gateway.database.db,
        upstream.merchant.id,
        {
          webhookUrl: `${gw.url}/callbacks/paychangu`,
        },
        Date.now(),
      );
      merchant = await gw.newMerchant('Live Shop');
    });
    afterEach(async () => {
      await assertLedgerBalanced(gw);
      await assertLedgerBalanced(upstream.gw);
    });
    after(async () => {
      await gw.close();
      await upstream.close();
    });

    const row = async (chargeId: string): Promise<Charge> => {
      const rows = await chargeRows(gw, merchant.id, chargeId);
      assert.equal(rows.length, 1);
      return rows[0]!;
    };
    const ended = (chargeId: string) =>
      eventually(`${chargeId} to end`, async () => ((await row(chargeId)).status === 'pending' ? null : row(chargeId)));
    /** The upstream's records of our reference: one, whatever happened. */
    const upstreamRecords = (reference: string) => chargeRows(upstream.gw, upstream.merchant.id, reference);

    test('a live TNM Mpamba charge goes to the upstream under our reference and is settled by its webhook', async () => {
      const body = chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF });
      const created = await initializeCharge(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.status, 'pending');
      const charge = await ended(String(body.charge_id));
      assert.equal(charge.status, 'success');
      const [upstreamCharge] = await upstreamRecords(charge.id);
      assert.equal((await upstreamRecords(charge.id)).length, 1, 'one upstream charge');
      assert.equal(charge.trans_id, upstreamCharge!.ref_id, "the upstream's reference is the operator id");
      assert.equal((await verify(gw, merchant.live_secret_key, String(body.charge_id))).body.data.status, 'success');
      assert.equal(await eventCount(gw, charge), 1);
    });

    test('a live TNM Mpamba charge the upstream declines fails with its reason', async () => {
      const body = chargeBody({ mobile: TEST_NUMBERS.tnmFailed, mobile_money_operator_ref_id: TNM_REF });
      assert.equal((await initializeCharge(gw, merchant.live_secret_key, body)).status, 201);
      const charge = await ended(String(body.charge_id));
      assert.equal(charge.status, 'failed');
      assert.match(charge.failure_reason ?? '', /insufficient balance/);
    });

    test('a live bank transfer shows the account the upstream opened, and ends paid with the payer', async () => {
      const body = bankTransferBody();
      const created = await initializeBankTransfer(gw, merchant.live_secret_key, body);
      assert.equal(created.status, 201, created.text);
      const charge = await ended(String(body.charge_id));
      assert.equal(charge.status, 'success');
      const details = await bankTransferDetails(gw, merchant.live_secret_key, String(body.charge_id));
      assert.equal(details.status, 200, details.text);
      assert.match(details.text, /Test Payer|\*{6}4321/, 'the payer the upstream reported');
    });

    test('a live bank payout goes through the upstream once and ends paid', async () => {
      const payer = chargeBody({
        mobile: TEST_NUMBERS.tnmSuccess,
        mobile_money_operator_ref_id: TNM_REF,
        amount: 5000,
      });
      assert.equal((await initializeCharge(gw, merchant.live_secret_key, payer)).status, 201);
      await ended(String(payer.charge_id));
      await settleCollections(gw.gateway.database.db, Date.now());
      await fundMainBalance(upstream.gw, upstream.merchant, 10_000);
      const body = bankPayoutBody({ amount: 1000 });
      const created = await call(gw.url, '/direct-charge/payouts/initialize', { key: merchant.live_secret_key, body });
      assert.equal(created.status, 201, created.text);
      const payout = await ended(String(body.charge_id));
      assert.equal(payout.status, 'success');
      assert.equal((await upstreamRecords(payout.id)).length, 1, 'one upstream payout');
    });

    test('a forged upstream webhook is refused and changes nothing; a signed one about an unknown reference is answered', async () => {
      const body = chargeBody({ mobile: TEST_NUMBERS.tnmSuccess, mobile_money_operator_ref_id: TNM_REF });
      const payload = JSON.stringify({
        event_type: 'api.charge.payment',
        charge_id: 'nobody-knows-this',
        status: 'success',
      });
      const forged = await call(gw.url, '/callbacks/paychangu', {
        rawBody: payload,
        headers: { 'content-type': 'application/json', Signature: 'deadbeef' },
      });
      assert.equal(forged.status, 401);
      const signature = createHmac('sha256', upstream.merchant.webhook_secret).update(payload).digest('hex');
      const unknown = await call(gw.url, '/callbacks/paychangu', {
        rawBody: payload,
        headers: { 'content-type': 'application/json', Signature: signature },
      });
      assert.equal(unknown.status, 200, unknown.text);
      assert.match(unknown.body.message, /no pending live transaction/);
      assert.deepEqual(await chargeRows(gw, merchant.id, String(body.charge_id)), []);
    });
  });
}
