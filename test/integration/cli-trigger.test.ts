import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { lipira, type CliResult } from '../helpers/cli.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { accountMinor, chargeBody, eventually, initializeCharge, testChargeRow } from '../helpers/mobile-money.ts';
import { cardBody, chargeCard } from '../helpers/cards.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/**
 * `lipira trigger` and `lipira test` as real processes talking HTTP to a real gateway (its
 * workers running, the sandbox approving after 200 ms): each trigger ends as it says, with the
 * webhook, receipts and ledger a real payment leaves, and exits 1 when its flow cannot end so.
 * On SQLite only: the commands speak HTTP, and every helper they call is tested on both databases
 * (test-helpers.test.ts); a second run would double the suite's time, most of it starting processes.
 */
describe('lipira trigger and lipira test', () => {
  const ctx = useTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '200ms', WEBHOOK_RETRY_SCHEDULE: '1h' });
  const receivers: Receiver[] = [];
  after(() => Promise.all(receivers.map((receiver) => receiver.close())));
  const env = () => ({ LIPIRA_URL: ctx.gw.url, LIPIRA_API_KEY: ctx.merchant.test_secret_key });
  const db = () => ctx.gw.gateway.database.db;

  /** Runs `lipira …` with `--json` and answers what it printed, having checked it exited 0. */
  async function json(args: string[]): Promise<Record<string, string>> {
    const result = await lipira([...args, '--json'], env());
    assert.equal(result.code, 0, result.stderr || result.stdout);
    return JSON.parse(result.stdout) as Record<string, string>;
  }

  test('trigger checkout.payment pays a session on its page: webhook, receipt and ledger follow', async () => {
    const { code, stdout, stderr } = await lipira(['trigger', 'checkout.payment', '--amount', '1500'], env());
    assert.equal(code, 0, stderr);
    const txRef = /^tx_ref\s+(\S+)$/m.exec(stdout)?.[1];
    const chargeId = /^charge_id\s+(\S+)$/m.exec(stdout)?.[1];
    assert.ok(txRef && chargeId, stdout);
    assert.match(stdout, /^status\s+success$/m);
    assert.match(stdout, /^session_status\s+success$/m);
    const charge = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
    assert.equal(charge.status, 'success');
    assert.ok(charge.session_id, 'paid through a checkout session');
    assert.equal(await accountMinor(ctx.gw, ctx.merchant.id, 'collection'), 150_000 - 4_500);
    const events = await db()
      .selectFrom('events')
      .select(['id', 'type'])
      .where('subject_id', '=', charge.session_id)
      .execute();
    assert.deepEqual(
      events.map((event) => event.type),
      ['checkout.payment'],
    );
    const receipts = await db().selectFrom('emails').select('kind').where('event_id', '=', events[0]!.id).execute();
    assert.ok(receipts.length > 0, 'receipts are queued');
  });

  test('trigger checkout.payment --failed fails the attempt, with meta on the session', async () => {
    const made = await json(['trigger', 'checkout.payment', '--failed', '--meta', 'order=42', '--meta=source=cli']);
    assert.equal(made.status, 'failed');
    assert.equal(made.session_status, 'pending');
    const verified = await call(ctx.gw.url, `/verify-payment/${made.tx_ref}`, { key: ctx.merchant.test_secret_key });
    assert.deepEqual(verified.body.data.meta, { order: '42', source: 'cli' });
  });

  test('trigger api.charge.payment by mobile money, card and bank transfer ends each in success', async () => {
    for (const method of ['mobile_money', 'card', 'bank_transfer']) {
      const made = await json(['trigger', 'api.charge.payment', '--method', method, '--amount', '2000']);
      assert.equal(made.status, 'success', method);
      const charge = await testChargeRow(ctx.gw, ctx.merchant.id, made.charge_id!);
      assert.equal(charge.status, 'success', method);
      assert.equal(charge.channel, method);
    }
  });

  test('trigger api.refund refunds a payment; trigger api.payout pays out of the settled balance', async () => {
    const refunded = await json(['trigger', 'api.refund', '--amount', '1200']);
    assert.equal(refunded.status, 'success');
    assert.equal(refunded.refund_status, 'success');
    assert.ok(refunded.refund_id);
    const paidOut = await json(['trigger', 'api.payout', '--amount', '500']);
    assert.equal(paidOut.status, 'success');
    const payout = await testChargeRow(ctx.gw, ctx.merchant.id, paidOut.charge_id!);
    assert.equal(payout.kind, 'payout');
    assert.equal(payout.status, 'success');
  });

  test('a trigger whose flow cannot end as it should exits 1, saying why, after printing what it made', async () => {
    const refused = await lipira(['trigger', 'api.charge.payment', '--currency', 'ZMW'], env());
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /^charge_id\s+trigger-/m);
    assert.match(refused.stderr, /POST \/mobile-money\/payments\/initialize: 400 currency: The currency must be MWK/);
    const live = await lipira(['trigger', 'checkout.payment'], {
      ...env(),
      LIPIRA_API_KEY: ctx.merchant.live_secret_key,
    });
    assert.equal(live.code, 1);
    assert.match(live.stderr, /400 Live payments are not set up/);
    const unknown: CliResult = await lipira(['trigger', 'api.nothing'], env());
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /usage: lipira trigger/);
    const keyless = await lipira(['trigger', 'checkout.payment', '--url', ctx.gw.url], {});
    assert.equal(keyless.code, 2);
    assert.match(keyless.stderr, /a secret key is needed/);
  });

  test('lipira test complete, receive, expire and settle act through the helpers, piped', async () => {
    // Card charges wait for their code with no approval delay: nothing but the helper ends them.
    const card = cardBody();
    assert.equal((await chargeCard(ctx.gw, ctx.merchant.test_secret_key, card)).status, 200);
    const completed = await lipira(['test', 'complete', String(card.charge_id), '--status', 'success'], env());
    assert.equal(completed.code, 0, completed.stderr);
    assert.equal(completed.stdout, `${String(card.charge_id)}  success\n`);

    const failing = cardBody();
    assert.equal((await chargeCard(ctx.gw, ctx.merchant.test_secret_key, failing)).status, 200);
    const failed = await json([
      'test',
      'complete',
      String(failing.charge_id),
      '--status=failed',
      '--failure-code',
      'declined',
    ]);
    assert.equal(failed.status, 'failed');
    assert.equal((await testChargeRow(ctx.gw, ctx.merchant.id, String(failing.charge_id))).failure_code, 'declined');

    // MWK 7,014: the sandbox sends no transfer of its own, so the helper's is the only one.
    const transfer = bankTransferBody({ amount: 7014 });
    assert.equal((await initializeBankTransfer(ctx.gw, ctx.merchant.test_secret_key, transfer)).status, 201);
    const received = await lipira(['test', 'receive', String(transfer.charge_id), '--amount', '7013'], env());
    assert.equal(received.stdout, `${String(transfer.charge_id)}  failed\n`);

    const session = currentBody();
    assert.equal(
      (await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body: session })).status,
      201,
    );
    const expired = await json(['test', 'expire', String(session.tx_ref)]);
    assert.equal(expired.status, 'failed');
    const again = await lipira(['test', 'expire', String(session.tx_ref)], env());
    assert.equal(again.code, 1);
    assert.match(again.stderr, /409 This session has already ended \(failed\)/);

    const settled = await lipira(['test', 'settle'], env());
    assert.equal(settled.code, 0, settled.stderr);
    assert.match(settled.stdout, /^Settled \d+ collection balance\(s\) into the main balance\.$/m);
    assert.equal(await accountMinor(ctx.gw, ctx.merchant.id, 'collection'), 0);
  });

  test('lipira test retry-webhook sends a waiting delivery now and prints how the try went', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? { status: 503 } : { status: 200, body: 'ok' }));
    receivers.push(receiver);
    const merchant = await ctx.gw.newMerchant('Hooked Shop');
    await updateMerchantSettings(db(), merchant.id, { webhookUrl: receiver.url }, Date.now());
    const body = chargeBody();
    assert.equal((await initializeCharge(ctx.gw, merchant.test_secret_key, body)).status, 201);
    const delivery = await eventually('the first try to fail', async () => {
      const row = await db()
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('charge_id', '=', String(body.charge_id))
        .executeTakeFirst();
      return row && row.attempts === 1 && row.locked_until === null ? row : null;
    });
    const retried = await lipira(['test', 'retry-webhook', delivery.id], {
      LIPIRA_URL: ctx.gw.url,
      LIPIRA_API_KEY: merchant.test_secret_key,
    });
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(retried.stdout, `${delivery.id}  delivered  tries 2\n`);
    assert.equal(receiver.received.length, 2);
  });
});
