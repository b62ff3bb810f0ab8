import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from 'lipira';
import { emitEvent } from '../../src/events/event-repository.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver, type Reply } from '../helpers/receiver.ts';

/** The receivers listen on loopback: test-mode webhooks go there only with WEBHOOK_ALLOW_LOOPBACK on (the test helpers' default, said here too). */
const SETTINGS = {
  WORKER_INTERVAL: '50ms',
  WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
  WEBHOOK_TIMEOUT: '500ms',
  SANDBOX_MOBILE_DELAY: '50ms',
  WEBHOOK_ALLOW_LOOPBACK: 'on',
};

for (const kind of DATABASE_KINDS) {
  describe(`webhooks on ${kind}`, () => {
    let gw: TestGateway;
    const receivers: Receiver[] = [];

    before(async () => {
      gw = await startTestGateway(kind, SETTINGS);
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await gw.close();
    });

    /** A merchant whose webhook URL is a fresh receiver answering as told. */
    async function merchantWithReceiver(
      reply?: (n: number) => Reply,
    ): Promise<{ merchant: MerchantCredentials; receiver: Receiver }> {
      const receiver = await startReceiver(reply);
      receivers.push(receiver);
      const merchant = await gw.newMerchant();
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
      return { merchant, receiver };
    }

    const api = (merchant: MerchantCredentials, path: string, method = 'GET') =>
      call(gw.url, path, { key: merchant.test_secret_key, method });

    async function deliveryFor(merchant: MerchantCredentials, txRef: string) {
      const list = await api(merchant, `/webhooks/deliveries?tx_ref=${txRef}`);
      assert.equal(list.status, 200);
      assert.equal(list.body.data.data.length, 1);
      return (await api(merchant, `/webhooks/deliveries/${list.body.data.data[0].id}`)).body.data;
    }

    async function settled(merchant: MerchantCredentials, txRef: string, status: string) {
      for (let waited = 0; waited < 10_000; waited += 50) {
        const delivery = await deliveryFor(merchant, txRef);
        if (delivery.status === status) return delivery;
        await sleep(50);
      }
      throw new Error(`delivery for ${txRef} never became ${status}`);
    }

    test('a successful payment is delivered once, flat, with both signatures', async () => {
      const { merchant, receiver } = await merchantWithReceiver();
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const [request] = await receiver.waitFor(1);
      const secret = merchant.webhook_secret;
      assert.equal(
        request!.headers.signature,
        createHmac('sha256', secret).update(request!.body).digest('hex'),
        'Signature is the hex HMAC of the exact body',
      );
      assert.match(String(request!.headers['webhook-id']), /^msg_/);
      assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
      const payload = verifyWebhook(request!.body, request!.headers, secret);
      assert.equal(payload.event_type, 'checkout.payment');
      assert.equal(payload.tx_ref, payment.txRef);
      assert.equal(payload.status, 'success');
      assert.equal(payload.charge_id, payload.chargeId);
      assert.equal(payload.amount, 1000);
      assert.equal(payload.currency, 'MWK');
      assert.equal(payload.charge, 30);
      assert.equal(payload.mode, 'test');
      assert.equal(payload.type, 'API Payment (Checkout)');
      assert.deepEqual(payload.meta, { order_id: 7 });
      assert.equal((payload.authorization as { mobile_number: string }).mobile_number, '+265990xxxx00');
      const delivery = await settled(merchant, payment.txRef, 'delivered');
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0].status_code, 200);
      assert.equal(
        delivery.attempts[0].response_body,
        null,
        'what a loopback receiver answered is not shown (it said "ok")',
      );
      assert.equal(typeof delivery.attempts[0].latency_ms, 'number');
      await sleep(300);
      assert.equal(receiver.received.length, 1, 'no second copy');
    });

    test('verifyWebhook refuses a tampered body, a wrong secret and a stale timestamp', async () => {
      const { merchant, receiver } = await merchantWithReceiver();
      await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const [request] = await receiver.waitFor(1);
      const { body, headers } = request!;
      assert.throws(
        () => verifyWebhook(body.replace('"success"', '"failed"'), headers, merchant.webhook_secret),
        /signature/,
      );
      assert.throws(() => verifyWebhook(body, headers, 'whsec_wrong'), /signature/);
      assert.throws(
        () => verifyWebhook(body, headers, merchant.webhook_secret, { now: Date.now() + 10 * 60_000 }),
        /window/,
      );
      const { signature: _legacy, ...standardOnly } = headers;
      assert.equal(verifyWebhook(body, standardOnly, merchant.webhook_secret).status, 'success');
      const legacyOnly = { signature: String(headers.signature) };
      assert.throws(
        () => verifyWebhook(body, legacyOnly, merchant.webhook_secret),
        /allowSignatureOnly/,
        'a Signature alone proves nothing about when it was sent',
      );
      assert.equal(
        verifyWebhook(body, legacyOnly, merchant.webhook_secret, { allowSignatureOnly: true }).status,
        'success',
      );
    });

    test('each failed attempt is delivered with status failed', async () => {
      const { merchant, receiver } = await merchantWithReceiver();
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000001');
      const [request] = await receiver.waitFor(1);
      const payload = verifyWebhook(request!.body, request!.headers, merchant.webhook_secret);
      assert.equal(payload.status, 'failed');
      assert.equal(payload.tx_ref, payment.txRef);
      assert.match(String(payload.failure_reason), /declined/i);
    });

    test('a receiver that fails twice then succeeds gets three tries, all recorded', async () => {
      const { merchant, receiver } = await merchantWithReceiver((n) =>
        n <= 2 ? { status: 500, body: 'x'.repeat(3000) } : { status: 204 },
      );
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      await receiver.waitFor(3);
      const delivery = await settled(merchant, payment.txRef, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((a: { status_code: number }) => a.status_code),
        [500, 500, 204],
      );
      assert.equal(
        delivery.attempts[0].response_body,
        null,
        "a loopback receiver's answer is not kept (a public one's first 1 KiB is: test/unit/http-sender.test.ts)",
      );
      assert.equal(delivery.attempt_count, 3);
      assert.equal(
        new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
        1,
        'retries keep the webhook-id',
      );
    });

    test('a receiver that hangs past the timeout is retried', async () => {
      const { merchant, receiver } = await merchantWithReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const delivery = await settled(merchant, payment.txRef, 'delivered');
      assert.equal(delivery.attempts.length, 2);
      assert.equal(delivery.attempts[0].status_code, null);
      assert.match(delivery.attempts[0].error, /Timed out after 500 ms/);
      assert.ok(delivery.attempts[0].latency_ms >= 450);
      assert.equal(receiver.received.length, 2);
    });

    test('a redirect is never followed and counts as a failure, until the delivery is marked failed', async () => {
      const target = await startReceiver();
      receivers.push(target);
      const { merchant, receiver } = await merchantWithReceiver(() => ({
        status: 302,
        headers: { location: target.url },
      }));
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const delivery = await settled(merchant, payment.txRef, 'failed');
      assert.equal(delivery.attempts.length, 4, 'the first try and the three retries of the schedule');
      assert.equal(
        delivery.attempts[0].error,
        'Redirect not followed',
        'where a loopback receiver redirects to is not shown either',
      );
      assert.equal(receiver.received.length, 4);
      assert.equal(target.received.length, 0, 'the redirect target was never called');
      const failed = await api(merchant, '/webhooks/deliveries?status=failed');
      assert.equal(failed.body.data.data.length, 1, 'a failed delivery stays visible');
      assert.equal(failed.body.data.data[0].next_attempt_at, null);
    });

    test('429 with Retry-After is honoured over a shorter schedule', async () => {
      const { merchant, receiver } = await merchantWithReceiver((n) =>
        n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
      );
      await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const [first, second] = await receiver.waitFor(2);
      assert.ok(second!.at - first!.at >= 950, `retried after ${second!.at - first!.at} ms, not the 1 s asked for`);
    });

    test('a delivery can be re-sent on demand, by API and by CLI', async () => {
      const { merchant, receiver } = await merchantWithReceiver();
      const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      const delivery = await settled(merchant, payment.txRef, 'delivered');
      const resent = await api(merchant, `/webhooks/deliveries/${delivery.id}/redeliver`, 'POST');
      assert.equal(resent.status, 200);
      assert.equal(resent.body.data.status, 'pending');
      await receiver.waitFor(2);
      const cli = await lipira(['webhooks', 'redeliver', delivery.id], { DATABASE_URL: gw.database.url });
      assert.equal(cli.code, 0, cli.stderr);
      await receiver.waitFor(3);
      assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1);
      const shown = await lipira(['webhooks', 'show', delivery.id, '--json'], { DATABASE_URL: gw.database.url });
      assert.equal(JSON.parse(shown.stdout).attempts.length >= 2, true);
      const listed = await lipira(['webhooks', 'list', '--merchant', merchant.id, '--json'], {
        DATABASE_URL: gw.database.url,
      });
      assert.equal(JSON.parse(listed.stdout).deliveries[0].id, delivery.id);
    });

    test('deliveries are scoped to the merchant and mode; filters and paging work', async () => {
      const { merchant, receiver } = await merchantWithReceiver();
      const payments = [];
      for (let i = 0; i < 3; i++) payments.push(await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000'));
      await receiver.waitFor(3);
      const page1 = await api(merchant, '/webhooks/deliveries?per_page=2');
      assert.equal(page1.body.data.total, 3);
      assert.equal(page1.body.data.total_pages, 2);
      assert.equal(page1.body.data.data.length, 2);
      assert.equal(page1.body.data.data[0].tx_ref, payments[2]!.txRef, 'latest first');
      assert.match(page1.body.data.next_page_url, /page=2/);
      const page2 = await call(
        gw.url,
        new URL(page1.body.data.next_page_url).pathname + new URL(page1.body.data.next_page_url).search,
        { key: merchant.test_secret_key },
      );
      assert.equal(page2.body.data.data.length, 1);
      const byCharge = await api(merchant, `/webhooks/deliveries?charge_id=${page1.body.data.data[0].charge_id}`);
      assert.equal(byCharge.body.data.data.length, 1);
      const other = await gw.newMerchant('Other');
      const id = page1.body.data.data[0].id;
      assert.equal((await api(other, `/webhooks/deliveries/${id}`)).status, 404);
      assert.equal(
        (await call(gw.url, `/webhooks/deliveries/${id}`, { key: merchant.live_secret_key })).status,
        404,
        'a live key sees no test delivery',
      );
      assert.equal(
        (await call(gw.url, `/webhooks/deliveries/${id}/redeliver`, { key: merchant.live_secret_key, method: 'POST' }))
          .status,
        404,
      );
      assert.equal((await call(gw.url, '/webhooks/deliveries', { key: merchant.live_secret_key })).body.data.total, 0);
      assert.equal((await call(gw.url, '/webhooks/deliveries')).status, 401);
      const bad = await api(merchant, '/webhooks/deliveries?status=lost');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.message, { status: ['The selected status is invalid.'] });
    });

    test('an id or filter holding a NUL (which PostgreSQL cannot even compare) finds nothing, not a 500', async () => {
      const merchant = await gw.newMerchant();
      for (const [path, method] of [
        ['/webhooks/deliveries/a%00b', 'GET'],
        ['/webhooks/deliveries/%00/redeliver', 'POST'],
      ] as const) {
        const res = await api(merchant, path, method);
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.message, 'Webhook delivery not found.');
      }
      for (const filter of ['tx_ref=%00', 'charge_id=a%00b']) {
        const res = await api(merchant, `/webhooks/deliveries?${filter}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.total, 0);
      }
    });

    test('live webhooks are refused for loopback, private, link-local and reserved destinations, though loopback is allowed for test mode', async () => {
      const loopback = await startReceiver();
      const loopback6 = await startReceiver(undefined, '::1');
      receivers.push(loopback, loopback6);
      const port = new URL(loopback.url).port;
      const destinations = [
        loopback.url,
        'http://10.0.0.1/hooks',
        'http://169.254.169.254/latest/meta-data',
        loopback6.url,
        `http://localhost:${port}/hooks`,
        `http://[::ffff:7f00:1]:${port}/hooks`,
        `http://[::ffff:127.0.0.1]:${port}/hooks`,
        'http://[::ffff:a9fe:a9fe]/latest/meta-data',
        'http://[2002:a9fe:a9fe::]/latest/meta-data',
        'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
      ];
      const db = gw.gateway.database.db;
      for (const url of destinations) {
        const merchant = await gw.newMerchant();
        await updateMerchantSettings(db, merchant.id, { webhookUrl: url }, Date.now());
        await db.transaction().execute((trx) =>
          emitEvent(
            trx,
            {
              merchantId: merchant.id,
              mode: 'live',
              type: 'api.charge.payment',
              subjectId: 'ssrf',
              payload: { event_type: 'api.charge.payment', charge_id: `ssrf-${Date.now()}`, status: 'failed' },
            },
            Date.now(),
            'UTC',
          ),
        );
        let delivery;
        // Until the try and what follows from it are both recorded (a busy worker's lease can run out between the two, and the try is then made again).
        for (let waited = 0; waited < 10_000 && !(delivery?.attempts?.length && delivery.last_error); waited += 50) {
          const list = await call(gw.url, '/webhooks/deliveries', { key: merchant.live_secret_key });
          delivery = (
            await call(gw.url, `/webhooks/deliveries/${list.body.data.data[0].id}`, { key: merchant.live_secret_key })
          ).body.data;
          await sleep(50);
        }
        assert.match(delivery.attempts[0].error, /^Refused: /, url);
        assert.equal(delivery.attempts[0].status_code, null);
      }
      assert.equal(loopback.received.length + loopback6.received.length, 0, 'nothing reached the loopback receivers');
    });
  });

  describe(`test-mode webhooks without WEBHOOK_ALLOW_LOOPBACK on ${kind}`, () => {
    let gw: TestGateway;
    let receiver: Receiver;

    before(async () => {
      gw = await startTestGateway(kind, { ...SETTINGS, WEBHOOK_ALLOW_LOOPBACK: 'off', WEBHOOK_RETRY_SCHEDULE: '1h' });
      receiver = await startReceiver(() => ({ status: 200, body: 'internal service says hello' }));
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await receiver.close();
      await gw.close();
    });

    test('a test-mode delivery to 127.0.0.1 or localhost is refused: the try is recorded with its reason, nothing is sent', async () => {
      const port = new URL(receiver.url).port;
      for (const url of [receiver.url, `http://localhost:${port}/hooks`, `http://[::ffff:7f00:1]:${port}/hooks`]) {
        const merchant = await gw.newMerchant();
        await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: url }, Date.now());
        const payment = await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
        let delivery;
        // Until the try and what follows from it are both recorded (a busy worker's lease can run out between the two, and the try is then made again).
        for (let waited = 0; waited < 10_000 && !(delivery?.attempts?.length && delivery.last_error); waited += 50) {
          const list = await call(gw.url, `/webhooks/deliveries?tx_ref=${payment.txRef}`, {
            key: merchant.test_secret_key,
          });
          const id = list.body.data.data[0]?.id;
          if (id)
            delivery = (await call(gw.url, `/webhooks/deliveries/${id}`, { key: merchant.test_secret_key })).body.data;
          await sleep(50);
        }
        assert.ok(delivery.attempts.length >= 1, url);
        for (const attempt of delivery.attempts) {
          assert.match(attempt.error, /^Refused: .*is not a public address/, url);
          assert.equal(attempt.status_code, null);
          assert.equal(attempt.response_body, null);
        }
        assert.match(delivery.last_error, /^Refused: /);
        assert.equal(delivery.status, 'pending', 'retried on the schedule, like any failed try');
      }
      assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
    });
  });
}
