import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../lib/verify-webhook.js';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { lipira } from '../helpers/cli.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startListen } from '../helpers/listen-process.ts';
import { startReceiver } from '../helpers/receiver.ts';

const READY = /^Ready! Your webhook signing secret is (whsec_\w+) \(\^C to quit\)$/;
const LISTENING = /^Listening to /;

/**
 * Issue 32's "done when", as a developer meets it: in one terminal `lipira listen --forward-to` a
 * server on their laptop, in another `lipira trigger checkout.payment`; the payment's webhook
 * reaches the laptop's server, verified with the listen session's secret, although the gateway
 * sends no webhook to a loopback address (WEBHOOK_ALLOW_LOOPBACK off) and the merchant has no
 * webhook URL at all: the event came down the stream the CLI opened. How soon it arrives is
 * reported (a diagnostic), not asserted: speed goals live in the bench.
 */
describe('listen and trigger together, the gateway sending no webhook to loopback', () => {
  let gw: TestGateway;
  let merchant: MerchantCredentials;
  before(async () => {
    gw = await startTestGateway('sqlite', { WEBHOOK_ALLOW_LOOPBACK: 'off', SANDBOX_MOBILE_DELAY: '200ms' });
    merchant = await gw.newMerchant('Laptop Shop');
  });
  after(() => gw.close());

  test('a triggered checkout payment reaches the local server through listen, signed so that verifyWebhook accepts it', async (t) => {
    const receiver = await startReceiver();
    const listen = startListen(['--forward-to', receiver.url, '--url', gw.url, '--api-key', merchant.test_secret_key]);
    try {
      const secret = READY.exec(await listen.waitForLine(READY))![1]!;
      await listen.waitForLine(LISTENING);
      const triggered = await lipira(
        ['trigger', 'checkout.payment', '--json', '--url', gw.url, '--api-key', merchant.test_secret_key],
        {},
      );
      assert.equal(triggered.code, 0, triggered.stderr);
      const made = JSON.parse(triggered.stdout) as { tx_ref: string };
      const [received] = await receiver.waitFor(1);
      const body = verifyWebhook(received!.body, received!.headers, secret) as Record<string, unknown>;
      assert.equal(body.event_type, 'checkout.payment');
      assert.equal(body.tx_ref, made.tx_ref);
      assert.equal(body.status, 'success');
      const event = await gw.gateway.database.db
        .selectFrom('events')
        .select(['id', 'created_at'])
        .where('merchant_id', '=', merchant.id)
        .where('type', '=', 'checkout.payment')
        .executeTakeFirstOrThrow();
      assert.equal(received!.headers['webhook-id'], event.id);
      t.diagnostic(`event made to its arrival on the local server: ${received!.at - event.created_at} ms`);
      await listen.waitForLine(new RegExp(`checkout\\.payment  ${event.id}  \\[200\\]`));
      const deliveries = await gw.gateway.database.db.selectFrom('webhook_deliveries').selectAll().execute();
      assert.deepEqual(deliveries, [], 'the gateway itself sent no webhook: the merchant has no webhook URL');
      assert.equal(await listen.interrupt(), 0);
    } finally {
      listen.dispose();
      await receiver.close();
    }
  });
});
