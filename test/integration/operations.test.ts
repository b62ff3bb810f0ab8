import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { emitEvent } from '../../src/events/event-repository.ts';
import { createMerchant, updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway } from '../helpers/gateway.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startServe } from '../helpers/serve-process.ts';
import { lipira } from '../helpers/cli.ts';

/** POSTs JSON through `agent` and resolves with the status once the whole answer has arrived. */
function post(url: string, key: string, body: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('operating the gateway', () => {
  test('SIGTERM under load: no request is reset, every answer is a success, and no delivery is left claimed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-shutdown-'));
    const databaseUrl = `sqlite:${path.join(dir, 'lipira.db')}`;
    // A slow receiver keeps deliveries in the worker's hands when the signal arrives.
    const receiver = await startReceiver();
    const slow = await startReceiver(() => ({ status: 200, body: 'slow' }));
    const database = await openMigratedDatabase(databaseUrl);
    const merchant = await createMerchant(
      database.db,
      {
        name: 'Shutdown',
        email: 's@example.com',
        webhookUrl: slow.url,
        feeBasisPoints: 300,
      },
      Date.now(),
    );
    await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 30; i++) {
        await emitEvent(
          trx,
          {
            merchantId: merchant.id,
            mode: 'test',
            type: 'api.charge.payment',
            subjectId: `s${i}`,
            payload: { event_type: 'api.charge.payment', charge_id: `s${i}`, status: 'failed' },
          },
          Date.now(),
          'UTC',
        );
      }
    });
    await database.close();
    // Rate limits would answer this load with 429s; this test is about the shutdown.
    const server = await startServe({
      DATABASE_URL: databaseUrl,
      WORKER_INTERVAL: '20ms',
      OUTBOX_DIR: path.join(dir, 'outbox'),
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
    });
    try {
      const answered = new Map<number, number>();
      const failures = new Map<string, number>();
      let stopped = false;
      // Like a load generator (autocannon): a fixed set of keep-alive connections, reopened only
      // when the server closes one.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      const client = async () => {
        while (!stopped) {
          try {
            const status = await post(
              `${server.url}/payment`,
              merchant.test_secret_key,
              JSON.stringify(currentBody()),
              agent,
            );
            answered.set(status, (answered.get(status) ?? 0) + 1);
          } catch (error) {
            const code = (error as { code?: string }).code ?? String(error);
            failures.set(code, (failures.get(code) ?? 0) + 1);
            // Refused means the listener is gone: this client's work is over, cleanly.
            if (code === 'ECONNREFUSED') return;
          }
        }
      };
      const clients = Array.from({ length: 16 }, client);
      await sleep(700);
      const exit = server.stop(30_000);
      assert.equal(await exit, 0, server.output);
      stopped = true;
      await Promise.all(clients);
      agent.destroy();
      const resets = [...failures.entries()].filter(([code]) => code !== 'ECONNREFUSED');
      assert.deepEqual(resets, [], `requests failed mid-flight: ${JSON.stringify([...failures])}`);
      assert.deepEqual([...answered.keys()], [201], `every answer was a 201: ${JSON.stringify([...answered])}`);
      assert.ok((answered.get(201) ?? 0) > 50, 'the load was real');

      const after = await openMigratedDatabase(databaseUrl);
      try {
        const claimed = await after.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('locked_until', 'is not', null)
          .execute();
        assert.equal(claimed.length, 0, 'no delivery is left claimed');
        const claimedEmails = await after.db
          .selectFrom('emails')
          .select('id')
          .where('locked_until', 'is not', null)
          .execute();
        assert.equal(claimedEmails.length, 0);
      } finally {
        await after.close();
      }
      assert.ok(slow.received.length > 0, 'deliveries were under way during the shutdown');
    } finally {
      await server.dispose();
      await receiver.close();
      await slow.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('readiness fails as soon as shutdown begins, while requests are still served', async () => {
    const gw = await startTestGateway('sqlite', { SHUTDOWN_GRACE: '400ms' });
    assert.equal((await call(gw.url, '/readyz')).status, 200);
    const closing = gw.close();
    await sleep(100);
    const ready = await call(gw.url, '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'failed', message: 'Service temporarily unavailable.', data: null });
    assert.equal((await call(gw.url, '/healthz')).status, 200, 'still alive and serving');
    await closing;
  });

  test('lipira config prints the effective configuration with secrets masked', async () => {
    const result = await lipira(['config', '--json'], {
      DATABASE_URL: 'postgres://lipira:hunter2@db.internal:5432/lipira',
      SMTP_URL: 'smtp://mailer:s3cret@smtp.internal:587',
      METRICS_TOKEN: 'scrape-me',
      PORT: '9000',
    });
    assert.equal(result.code, 0, result.stderr);
    const config = JSON.parse(result.stdout);
    assert.equal(config.PORT, '9000');
    assert.equal(config.DATABASE_URL, 'postgres://lipira:****@db.internal:5432/lipira');
    assert.equal(config.SMTP_URL, 'smtp://mailer:****@smtp.internal:587');
    assert.equal(config.METRICS_TOKEN, '****');
    for (const secret of ['hunter2', 's3cret', 'scrape-me']) assert.ok(!result.stdout.includes(secret));
  });

  test('one structured log line per request, and no secret, card number or full mobile number in the logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const receiver = await startReceiver();
    const gw = await startTestGateway(
      'sqlite',
      { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' },
      pino({ level: 'debug' }, sink),
    );
    try {
      const merchant = await gw.newMerchant();
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
      await payByMobileMoney(gw.url, merchant.test_secret_key, '0990000000');
      await payByMobileMoney(gw.url, merchant.test_secret_key, '+265 899 817 566');
      const body = currentBody();
      const created = await call(gw.url, '/payment', { key: merchant.test_secret_key, body });
      const client = new CheckoutClient(gw.url);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      await client.get(pagePath);
      const posted = await client.post(`${pagePath}/pay/card`, {
        card_number: '4242 4242 4242 4242',
        expiry: '12/30',
        cvv: '987',
      });
      await client.follow(await client.post(`${new URL(posted.location!).pathname}/otp`, { otp: '1234' }));
      await call(gw.url, '/api/payment', {
        body: {
          secret_key: merchant.live_secret_key,
          first_name: 'A',
          last_name: 'B',
          email: 'a@b.co',
          currency: 'MWK',
          amount: 10,
          customization: { title: 't', description: 'd' },
        },
      });
      await call(gw.url, '/payment', { key: `sec-test-${'X'.repeat(32)}`, body: {} });
      await receiver.waitFor(2);
      await sleep(200);
    } finally {
      await gw.close();
      await receiver.close();
    }
    const text = lines.join('');
    const merchantSecrets = [/sec-(test|live)-[0-9A-Za-z]{32}/, /whsec_[0-9A-Za-z]{32}/];
    for (const secret of merchantSecrets) assert.doesNotMatch(text, secret);
    // (A three-digit CVV cannot be searched for: any timestamp may contain it. The card test checks none is stored.)
    for (const number of ['4242424242424242', '4242 4242 4242 4242', '0990000000', '265990000000', '899817566']) {
      assert.ok(!text.includes(number), `the logs contain ${number}`);
    }
    const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    assert.ok(requests.length >= 10);
    for (const entry of requests) {
      assert.equal(typeof entry.reqId, 'string');
      assert.equal(typeof entry.status, 'number');
      assert.equal(typeof entry.ms, 'number');
      assert.ok('route' in entry && 'merchant' in entry);
    }
    assert.ok(
      requests.some(
        (entry) => entry.route === '/payment' && entry.status === 201 && typeof entry.merchant === 'string',
      ),
    );
  });
});
