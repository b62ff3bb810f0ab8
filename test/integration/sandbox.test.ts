import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { updateMerchantSettings } from '../../src/merchants/merchant-service.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';

const HOSTILE = '<script>alert(1)</script>';

/** How many rows each table holds: what a route that stores nothing must leave as it found it. */
async function rowCounts(gw: TestGateway): Promise<Record<string, number>> {
  const db = gw.gateway.database.db;
  const counts: Record<string, number> = {};
  for (const table of await db.introspection.getTables()) {
    const { rows } = await sql<{
      count: number | string;
    }>`select count(*) as count from ${sql.table(table.name)}`.execute(db);
    counts[table.name] = Number(rows[0]!.count);
  }
  return counts;
}

const testWebhook = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'checkout.payment',
  tx_ref: 'order-1',
  status: 'success',
  mode: 'test',
  ...overrides,
});

describe('the sandbox landing page and webhook sink', () => {
  const ctx = useTestGateway('sqlite');

  test('the landing page shows what the redirect carried, escaped, and how to verify it', async () => {
    const query = new URLSearchParams({
      order: '7',
      tx_ref: 'order-1001',
      transaction_id: '48670703025',
      status: 'success',
    });
    const response = await fetch(`${ctx.gw.url}/sandbox/landing?${query}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const html = await response.text();
    const rows = [...html.matchAll(/<tr><th scope="row">([^<]+)<\/th><td><code>([^<]*)<\/code><\/td><\/tr>/g)].map(
      (row) => `${row[1]}=${row[2]}`,
    );
    assert.deepEqual(
      rows,
      ['tx_ref=order-1001', 'status=success', 'transaction_id=48670703025', 'order=7'],
      "the checkout's parameters first, then the URL's own",
    );
    assert.ok(html.includes(`curl -s ${ctx.gw.url}/verify-payment/order-1001 -H "Authorization: Bearer $KEY"`), html);
    assert.match(html, /A redirect proves nothing/);
    assert.match(html, /stores nothing and shows the same for live payments/);
  });

  test('whatever the query holds is shown as text, never as markup', async () => {
    const query = new URLSearchParams([
      ['tx_ref', HOSTILE],
      ['status', '"><img src=x onerror=alert(1)>'],
      [HOSTILE, 'x'],
      ['status', 'failed'],
    ]);
    const html = await (await fetch(`${ctx.gw.url}/sandbox/landing?${query}`)).text();
    assert.ok(!html.includes('<script>alert'), html);
    assert.ok(!html.includes('<img src=x'), html);
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(
      html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'),
      'both values of a repeated parameter are shown',
    );
    assert.ok(
      html.includes(`/verify-payment/${encodeURIComponent(HOSTILE)}`),
      'the reference is a path segment in the curl line',
    );
  });

  test('with no parameters it says how to use it', async () => {
    const html = await (await fetch(`${ctx.gw.url}/sandbox/landing`)).text();
    assert.match(html, /No parameters came with this visit/);
    assert.ok(html.includes(`<code>${ctx.gw.url}/sandbox/landing</code> as a session's <code>callback_url</code>`));
  });

  test('the sink takes test-mode webhooks and refuses live ones, in the envelope', async () => {
    assert.deepEqual((await call(ctx.gw.url, '/sandbox/webhook', { body: testWebhook() })).body, {
      status: 'success',
      message: 'Webhook received; nothing was kept.',
      data: null,
    });
    const live = await call(ctx.gw.url, '/sandbox/webhook', { body: testWebhook({ mode: 'live' }) });
    assert.equal(live.status, 400);
    assert.deepEqual(live.body, {
      status: 'failed',
      message: { mode: ['The webhook sink takes test-mode webhooks only; send live ones to your own server.'] },
      data: null,
    });
    const unmarked = await call(ctx.gw.url, '/sandbox/webhook', { body: { event_type: 'checkout.payment' } });
    assert.equal(unmarked.status, 400);
    assert.equal(unmarked.body.status, 'failed');
    assert.ok(unmarked.body.message.mode, unmarked.text);
    const notJson = await call(ctx.gw.url, '/sandbox/webhook', {
      rawBody: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.status, 'failed');
    assert.equal(
      (await call(ctx.gw.url, '/sandbox/webhook', { method: 'POST' })).status,
      400,
      'an empty body is no webhook',
    );
    assert.equal((await call(ctx.gw.url, '/sandbox/webhook', { method: 'GET' })).status, 405);
  });

  test('neither route stores anything', async () => {
    const before = await rowCounts(ctx.gw);
    await fetch(`${ctx.gw.url}/sandbox/landing?tx_ref=order-1&status=success`);
    await call(ctx.gw.url, '/sandbox/webhook', { body: testWebhook() });
    await call(ctx.gw.url, '/sandbox/webhook', { body: testWebhook({ mode: 'live' }) });
    assert.deepEqual(await rowCounts(ctx.gw), before);
  });
});

describe('the sandbox routes are limited per client address', () => {
  const ctx = useTestGateway('sqlite', {
    RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
    RATE_LIMIT_ADDRESS_BURST: '3',
    CLIENT_ADDRESS_HEADER: 'x-forwarded-for',
  });

  for (const [path, request] of [
    ['/sandbox/landing', { headers: {} }],
    ['/sandbox/webhook', { body: testWebhook() }],
  ] as const) {
    test(path, async () => {
      const address = path.endsWith('landing') ? '198.51.100.1' : '198.51.100.2';
      const statuses: number[] = [];
      for (let n = 0; n < 5; n += 1)
        statuses.push((await call(ctx.gw.url, path, { ...request, headers: { 'x-forwarded-for': address } })).status);
      assert.equal(
        statuses.filter((status) => status === 429).length >= 1,
        true,
        `over the burst of 3: ${statuses.join(',')}`,
      );
      assert.equal(statuses[0], 200);
    });
  }
});

for (const kind of DATABASE_KINDS) {
  describe(`a test merchant's webhooks delivered to the sink on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '50ms', WORKER_INTERVAL: '50ms' });

    test("a paid session's webhook is delivered on the first try", async () => {
      await updateMerchantSettings(
        ctx.gw.gateway.database.db,
        ctx.merchant.id,
        {
          webhookUrl: `${ctx.gw.url}/sandbox/webhook`,
        },
        Date.now(),
      );
      const payment = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, '0990000000');
      const delivered = await eventually('the delivery', async () => {
        const listed = await call(ctx.gw.url, `/webhooks/deliveries?tx_ref=${payment.txRef}`, {
          key: ctx.merchant.test_secret_key,
        });
        const delivery = listed.body.data.data[0];
        return delivery?.status === 'delivered' ? delivery : null;
      });
      assert.equal(delivered.attempt_count, 1);
    });
  });
}
