import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { assertLedgerBalanced, call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped; label values here never hold quotes or commas). */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with that name and (at least) those labels, or undefined. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  assert.ok(found.length <= 1, `one ${name} sample for ${JSON.stringify(labels)}, got ${found.length}`);
  return found[0]?.value;
}

async function scrape(gw: TestGateway, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await call(gw.url, '/metrics', { headers });
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(response.text);
}

/** Scrapes until `ready` holds for the samples (the workers deliver and send in the background). */
async function scrapeUntil(gw: TestGateway, what: string, ready: (samples: Sample[]) => boolean): Promise<Sample[]> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const samples = await scrape(gw);
    if (ready(samples)) return samples;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const PAYS = '0990000000';

for (const kind of DATABASE_KINDS) {
  describe(`metrics on ${kind}`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    let receiver: Receiver;
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));

    before(async () => {
      // The merchant's endpoint never answers: its delivery stays pending and due, so the queue has an age.
      receiver = await startReceiver(() => 'hang');
      gw = await startTestGateway(kind, {
        SANDBOX_MOBILE_DELAY: '50ms',
        WORKER_INTERVAL: '50ms',
        WEBHOOK_TIMEOUT: '30s',
        OUTBOX_DIR: outbox,
      });
      merchant = await gw.newMerchant();
      await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: receiver.url }, Date.now());
    });
    afterEach(() => assertLedgerBalanced(gw));
    after(async () => {
      await receiver.close();
      await gw.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    });

    test('requests are counted and timed by route pattern, method and status', async () => {
      const body = currentBody();
      const key = merchant.test_secret_key;
      assert.equal((await call(gw.url, '/payment', { key, body })).status, 201);
      assert.equal((await call(gw.url, `/verify-payment/${String(body.tx_ref)}`, { key })).status, 200);
      assert.equal((await call(gw.url, '/verify-payment/no-such-ref', { key })).status, 404);
      assert.equal((await call(gw.url, '/no/such/route')).status, 404);

      const samples = await scrape(gw);
      assert.equal(
        sampleValue(samples, 'lipira_http_requests_total', { route: '/payment', method: 'POST', status: '201' }),
        1,
      );
      assert.equal(
        sampleValue(samples, 'lipira_http_requests_total', {
          route: '/verify-payment/:tx_ref',
          method: 'GET',
          status: '200',
        }),
        1,
      );
      assert.equal(
        sampleValue(samples, 'lipira_http_requests_total', {
          route: '/verify-payment/:tx_ref',
          method: 'GET',
          status: '404',
        }),
        1,
      );
      assert.equal(
        sampleValue(samples, 'lipira_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }),
        1,
      );
      assert.ok(
        !samples.some((sample) => /no-such|no\/such/.test(sample.labels.route ?? '')),
        'no concrete URL becomes a label',
      );

      const created = { route: '/payment', method: 'POST', status: '201' };
      assert.equal(sampleValue(samples, 'lipira_http_request_duration_seconds_count', created), 1);
      assert.ok(sampleValue(samples, 'lipira_http_request_duration_seconds_sum', created)! > 0);
      assert.equal(sampleValue(samples, 'lipira_http_request_duration_seconds_bucket', { ...created, le: '+Inf' }), 1);
      const bounds = samples
        .filter(
          (sample) =>
            sample.name === 'lipira_http_request_duration_seconds_bucket' && sample.labels.route === '/payment',
        )
        .map((sample) => sample.labels.le);
      assert.deepEqual(bounds, [
        '0.001',
        '0.0025',
        '0.005',
        '0.01',
        '0.025',
        '0.05',
        '0.1',
        '0.25',
        '0.5',
        '1',
        '2.5',
        '5',
        '10',
        '+Inf',
      ]);
    });

    test('the process metrics are there, with the lipira_ prefix', async () => {
      const samples = await scrape(gw);
      assert.ok(sampleValue(samples, 'lipira_process_cpu_user_seconds_total')! > 0);
      assert.ok(sampleValue(samples, 'lipira_nodejs_heap_size_used_bytes')! > 0);
    });

    test('checkout sessions, webhook deliveries and emails are read from the database', async () => {
      const key = merchant.test_secret_key;
      const initial = await scrape(gw);
      for (const status of ['pending', 'success', 'failed'])
        assert.notEqual(sampleValue(initial, 'lipira_checkout_sessions', { status }), undefined, `a ${status} series`);
      const pendingBefore = sampleValue(initial, 'lipira_checkout_sessions', { status: 'pending' })!;

      await payByMobileMoney(gw.url, key, PAYS);
      assert.equal((await call(gw.url, '/payment', { key, body: currentBody() })).status, 201);

      // Paying queued a webhook (to an endpoint that never answers) and two receipts (written to the outbox).
      const samples = await scrapeUntil(
        gw,
        'the receipts to be sent and the webhook to be overdue',
        (current) =>
          sampleValue(current, 'lipira_emails', { status: 'sent' }) === 2 &&
          sampleValue(current, 'lipira_webhook_queue_oldest_seconds')! > 0.1,
      );
      assert.equal(sampleValue(samples, 'lipira_checkout_sessions', { status: 'success' }), 1);
      assert.equal(sampleValue(samples, 'lipira_checkout_sessions', { status: 'pending' }), pendingBefore + 1);
      assert.equal(sampleValue(samples, 'lipira_checkout_sessions', { status: 'failed' }), 0);
      assert.equal(sampleValue(samples, 'lipira_webhook_deliveries', { status: 'pending' }), 1);
      assert.equal(sampleValue(samples, 'lipira_webhook_deliveries', { status: 'delivered' }), 0);
      assert.equal(sampleValue(samples, 'lipira_webhook_deliveries', { status: 'failed' }), 0);
      assert.ok(sampleValue(samples, 'lipira_webhook_queue_oldest_seconds')! < 30, 'the age is in seconds');
      assert.equal(sampleValue(samples, 'lipira_emails', { status: 'pending' }), 0);
      assert.equal(sampleValue(samples, 'lipira_email_queue_oldest_seconds'), 0, 'nothing is waiting to be sent');
    });

    test('the API document lists /metrics', async () => {
      const document = await call(gw.url, '/openapi.json');
      assert.equal(document.status, 200);
      assert.ok(document.body.paths['/metrics']?.get, 'GET /metrics is documented');
      assert.ok(document.body.paths['/metrics'].get.responses['200'].content['text/plain']);
    });
  });
}

describe('metrics behind METRICS_TOKEN', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('sqlite', { METRICS_TOKEN: 'scrape-me-please' });
  });
  after(() => gw.close());

  test('no token or a wrong one is refused with the error envelope', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Bearer scrape-me-pleasE',
      'Bearer scrape-me-please-and-more',
      'Basic scrape-me-please',
    ]) {
      const response = await call(gw.url, '/metrics', { headers: authorization ? { authorization } : {} });
      assert.equal(response.status, 401, `refused: ${authorization}`);
      assert.deepEqual(response.body, { status: 'failed', message: 'Unauthenticated.', data: null });
    }
  });

  test('the right token gets the metrics', async () => {
    const samples = await scrape(gw, { authorization: 'Bearer scrape-me-please' });
    assert.ok(samples.some((sample) => sample.name === 'lipira_http_requests_total' && sample.labels.status === '401'));
  });
});
