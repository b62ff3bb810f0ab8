import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { verifyWebhook } from '../../lib/verify-webhook.js';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { recordEvent } from '../helpers/events.ts';
import { freePort, startTestGateway, TEST_SERVER_ENV, type TestGateway } from '../helpers/gateway.ts';
import { startListen } from '../helpers/listen-process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';
import type { MerchantCredentials } from '../../src/merchants/merchant-service.ts';

const READY = /^Ready! Your webhook signing secret is (whsec_\w+) \(\^C to quit\)$/;
const LISTENING = /^Listening to /;

describe('lipira listen', () => {
  let gw: TestGateway;
  let merchant: MerchantCredentials;
  before(async () => {
    gw = await startTestGateway('sqlite');
    merchant = await gw.newMerchant();
  });
  after(() => gw.close());

  test('forwards each event as its webhook, signed with the session secret verifyWebhook accepts, and exits 0 on Ctrl-C', async () => {
    const receiver = await startReceiver();
    const listen = startListen(['--forward-to', receiver.url, '--url', gw.url], {
      LIPIRA_API_KEY: merchant.test_secret_key,
    });
    try {
      const secret = READY.exec(await listen.waitForLine(READY))![1]!;
      await listen.waitForLine(LISTENING);
      const id = await recordEvent(gw.gateway.database, merchant.id, { payload: { tx_ref: 'listen-1' } });
      const [received] = await receiver.waitFor(1);
      const stored = await gw.gateway.database.db
        .selectFrom('events')
        .select('payload')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(received!.body, stored.payload, 'the body the webhook carries, byte for byte');
      assert.deepEqual(verifyWebhook(received!.body, received!.headers, secret), JSON.parse(stored.payload));
      assert.equal(received!.headers['content-type'], 'application/json');
      assert.equal(received!.headers['user-agent'], 'Lipira-Webhooks/1');
      assert.equal(received!.headers['webhook-id'], id);
      const line = await listen.waitForLine(new RegExp(id));
      assert.match(line, new RegExp(`^\\d\\d:\\d\\d:\\d\\d  --> api\\.charge\\.payment  ${id}  \\[200\\]  \\d+ ms$`));
      const deliveries = await gw.gateway.database.db.selectFrom('webhook_deliveries').selectAll().execute();
      assert.deepEqual(deliveries, [], "the merchant's own deliveries are untouched");
      assert.equal(await listen.interrupt(), 0);
    } finally {
      listen.dispose();
      await receiver.close();
    }
  });

  test('a local endpoint down or failing is reported on its line, and listening goes on; --events filters', async () => {
    const receiver = await startReceiver((n) => ({ status: n === 1 ? 500 : 204 }));
    const downUrl = `http://127.0.0.1:${await freePort()}/hooks`;
    const down = startListen(['--forward-to', downUrl, '--url', gw.url, '--api-key', merchant.test_secret_key]);
    const failing = startListen([
      '--forward-to',
      receiver.url,
      '--events',
      'api.refund,api.payout',
      '--url',
      gw.url,
      '--api-key',
      merchant.test_secret_key,
    ]);
    try {
      await down.waitForLine(LISTENING);
      await failing.waitForLine(LISTENING);
      const db = gw.gateway.database;
      const charge = await recordEvent(db, merchant.id);
      const first = await recordEvent(db, merchant.id, { type: 'api.refund' });
      const second = await recordEvent(db, merchant.id, { type: 'api.payout' });
      assert.match(await down.waitForLine(new RegExp(charge)), /\[failed: ECONNREFUSED\]/);
      await down.waitForLine(new RegExp(second));
      assert.match(await failing.waitForLine(new RegExp(first)), /\[500\]/);
      assert.match(await failing.waitForLine(new RegExp(second)), /\[204\]/);
      assert.ok(!failing.stdout.some((line) => line.includes(charge)), 'filtered out');
      assert.equal(receiver.received.length, 2);
      assert.equal(await down.interrupt(), 0);
      assert.equal(await failing.interrupt(), 0);
    } finally {
      down.dispose();
      failing.dispose();
      await receiver.close();
    }
  });

  test('--print-json prints each event as one JSON line, the session talk on stderr', async () => {
    const listen = startListen(['--print-json', '--url', gw.url, '--api-key', merchant.test_secret_key]);
    try {
      await listen.waitForLine(READY, 'stderr');
      await listen.waitForLine(LISTENING, 'stderr');
      const ids = [
        await recordEvent(gw.gateway.database, merchant.id),
        await recordEvent(gw.gateway.database, merchant.id),
      ];
      const lines = await listen.waitForLines(/^\{/, 2);
      const events = lines.map((line) => JSON.parse(line));
      assert.deepEqual(
        events.map((event) => event.id),
        ids,
      );
      assert.equal(events[0].type, 'api.charge.payment');
      assert.equal(events[0].payload.status, 'success');
      assert.ok(
        listen.stdout.every((line) => line === '' || line.startsWith('{')),
        'stdout holds the events alone',
      );
      assert.equal(await listen.interrupt(), 0);
    } finally {
      listen.dispose();
    }
  });

  test('refusals and usage mistakes end it with a clear line', async () => {
    const live = await lipira(['listen', '--print-json', '--url', gw.url, '--api-key', merchant.live_secret_key], {});
    assert.equal(live.code, 1);
    assert.match(live.stderr, /refused the stream \(403\): Live events are not streamed/);
    const bad = await lipira(['listen', '--print-json', '--url', gw.url, '--api-key', 'sec-test-nope'], {});
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /\(401\): Unauthenticated\./);
    const folder = temporaryFolder('lipira-listen-env-');
    try {
      fs.writeFileSync(
        path.join(folder.dir, '.env'),
        `LIPIRA_URL=${gw.url}\nLIPIRA_API_KEY=${merchant.live_secret_key}\n`,
      );
      const fromEnvFile = await lipira(['listen', '--print-json'], {}, folder.dir);
      assert.match(fromEnvFile.stderr, /\(403\): Live events/, 'the key and the URL came from .env');
    } finally {
      folder.remove();
    }
    const noKey = await lipira(['listen', '--print-json', '--url', gw.url], { LIPIRA_API_KEY: '' });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /a secret key is needed/);
    const neither = await lipira(['listen', '--api-key', merchant.test_secret_key], {});
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /usage: lipira listen/);
    const unknown = await lipira(
      ['listen', '--print-json', '--events', 'nope', '--api-key', merchant.test_secret_key],
      {},
    );
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown event type "nope"/);
  });
});

for (const kind of DATABASE_KINDS) {
  test(`listen reconnects after the gateway restarts and forwards every event, those made while it was down too (${kind})`, async () => {
    const database = freshDatabase(kind);
    // The events' receipts go to a folder of the test's own, never the checkout's ./data.
    const outbox = temporaryFolder('lipira-listen-outbox-');
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      SHUTDOWN_GRACE: '0',
      OUTBOX_DIR: outbox.dir,
      ...TEST_SERVER_ENV,
    });
    const start = async (): Promise<Gateway> =>
      startGateway(config, await openMigratedDatabase(config.databaseUrl), false);
    let gateway = await start();
    const shop = await createMerchant(
      gateway.database.db,
      { name: 'Restart Shop', email: 'shop@example.com', webhookUrl: null, feeBasisPoints: 300 },
      Date.now(),
    );
    const receiver = await startReceiver();
    const listen = startListen(['--forward-to', receiver.url, '--url', gateway.url, '--api-key', shop.test_secret_key]);
    try {
      await listen.waitForLine(LISTENING);
      const ids = [await recordEvent(gateway.database, shop.id)];
      await receiver.waitFor(1);
      await gateway.close();
      const offline = await openMigratedDatabase(config.databaseUrl);
      ids.push(await recordEvent(offline, shop.id), await recordEvent(offline, shop.id));
      await offline.close();
      gateway = await start();
      await listen.waitForLine(/^Reconnected to /);
      ids.push(await recordEvent(gateway.database, shop.id));
      await receiver.waitFor(4);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        receiver.received.map((request) => request.headers['webhook-id']),
        ids,
        'each event once, in order',
      );
      assert.ok(listen.stdout.some((line) => /^Lost the stream/.test(line)));
      assert.equal(await listen.interrupt(), 0);
    } finally {
      listen.dispose();
      await receiver.close();
      await gateway.close();
      await database.drop();
      outbox.remove();
    }
  });
}
