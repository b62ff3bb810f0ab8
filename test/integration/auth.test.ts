import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rollSecretKey } from '../../src/merchants/merchant-service.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';

const UNAUTHENTICATED = { status: 'failed', message: 'Unauthenticated.', data: null };
const NOT_FOUND = { status: 'failed', message: 'Transaction not found.', data: null };

for (const kind of DATABASE_KINDS) {
  describe(`authentication and modes on ${kind}`, () => {
    const ctx = useTestGateway(kind, LIVE_SESSIONS_ONLY);

    const badAuthorizations: Array<[string, Record<string, string>]> = [
      ['no Authorization header', {}],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['a malformed key', { authorization: 'Bearer sec-test-short' }],
      ['an unknown key of the right shape', { authorization: `Bearer sec-test-${'A'.repeat(32)}` }],
    ];
    for (const [name, headers] of badAuthorizations) {
      test(`${name} is a 401 on every API route`, async () => {
        for (const [path, body] of [
          ['/payment', currentBody()],
          ['/api/payment', legacyBody()],
          ['/verify-payment/x', undefined],
          ['/api/verify-payment/x', undefined],
        ] as const) {
          const res = await call(ctx.gw.url, path, { body, headers });
          assert.equal(res.status, 401, path);
          assert.deepEqual(res.body, UNAUTHENTICATED);
        }
      });
    }

    test('public keys are never accepted on API calls, and are told so (the browser routes: browser-checkout.test.ts)', async () => {
      for (const key of [ctx.merchant.test_public_key, ctx.merchant.live_public_key]) {
        const res = await call(ctx.gw.url, '/payment', { key, body: currentBody() });
        assert.equal(res.status, 401);
        assert.deepEqual(res.body, {
          status: 'failed',
          message: 'A public key can only create checkout sessions: use your secret key on your server.',
          data: null,
        });
      }
    });

    test('the bearer scheme is case-insensitive', async () => {
      const res = await call(ctx.gw.url, '/payment', {
        body: currentBody(),
        headers: { authorization: `bearer ${ctx.merchant.test_secret_key}` },
      });
      assert.equal(res.status, 201);
    });

    test('a test key cannot see a live record, nor a live key a test one', async () => {
      const live = currentBody();
      const test_ = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.live_secret_key, body: live })).status, 201);
      assert.equal(
        (await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body: test_ })).status,
        201,
      );
      for (const prefix of ['/verify-payment/', '/api/verify-payment/']) {
        const asTest = await call(ctx.gw.url, prefix + String(live.tx_ref), { key: ctx.merchant.test_secret_key });
        assert.equal(asTest.status, 404);
        assert.deepEqual(asTest.body, NOT_FOUND);
        assert.equal(
          (await call(ctx.gw.url, prefix + String(test_.tx_ref), { key: ctx.merchant.live_secret_key })).status,
          404,
        );
        assert.equal(
          (await call(ctx.gw.url, prefix + String(live.tx_ref), { key: ctx.merchant.live_secret_key })).status,
          200,
        );
      }
    });

    test("a merchant cannot see another merchant's record", async () => {
      const other = await ctx.gw.newMerchant('Other');
      const body = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key: other.test_secret_key, body })).status, 201);
      assert.equal(
        (await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, { key: ctx.merchant.test_secret_key }))
          .status,
        404,
      );
    });

    test('legacy create may carry the key as secret_key in the body; it is never echoed', async () => {
      const body = legacyBody({ secret_key: ctx.merchant.test_secret_key });
      const res = await call(ctx.gw.url, '/api/payment', { body });
      assert.equal(res.status, 201);
      assert.ok(!res.text.includes(ctx.merchant.test_secret_key));
      const verify = await call(ctx.gw.url, `/api/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(verify.status, 200);
      assert.ok(!verify.text.includes(ctx.merchant.test_secret_key));
      const stored = await ctx.gw.gateway.database.db
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('tx_ref', '=', String(body.tx_ref))
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored).includes(ctx.merchant.test_secret_key));
    });

    test('the Authorization header wins over a body secret_key', async () => {
      const withGoodHeader = await call(ctx.gw.url, '/api/payment', {
        key: ctx.merchant.test_secret_key,
        body: legacyBody({ secret_key: 'sec-test-bogus' }),
      });
      assert.equal(withGoodHeader.status, 201);
      const withBadHeader = await call(ctx.gw.url, '/api/payment', {
        key: `sec-test-${'B'.repeat(32)}`,
        body: legacyBody({ secret_key: ctx.merchant.test_secret_key }),
      });
      assert.equal(withBadHeader.status, 401);
    });

    test('a body secret_key is not accepted by the current generation', async () => {
      const res = await call(ctx.gw.url, '/payment', {
        body: currentBody({ secret_key: ctx.merchant.test_secret_key }),
      });
      assert.equal(res.status, 401);
    });

    test('a rolled key works at once and the old one keeps working until its expiry', async () => {
      const db = ctx.gw.gateway.database.db;
      const own = await ctx.gw.newMerchant('Roller');
      const rolled = await rollSecretKey(
        db,
        { merchantId: own.id, mode: 'test' },
        { expireOldInMs: 60 * 60 * 1000, now: Date.now() },
      );
      assert.ok(rolled);
      assert.equal((await call(ctx.gw.url, '/payment', { key: rolled.secret_key, body: currentBody() })).status, 201);
      assert.equal((await call(ctx.gw.url, '/payment', { key: own.test_secret_key, body: currentBody() })).status, 201);
      assert.equal(
        (await call(ctx.gw.url, '/payment', { key: own.live_secret_key, body: currentBody() })).status,
        201,
        'rolling test keys leaves live keys alone',
      );
    });

    test('an expired key is a 401', async () => {
      const db = ctx.gw.gateway.database.db;
      const own = await ctx.gw.newMerchant('Expired');
      const rolled = await rollSecretKey(
        db,
        { merchantId: own.id, mode: 'live' },
        { expireOldInMs: 0, now: Date.now() },
      );
      assert.ok(rolled);
      const res = await call(ctx.gw.url, '/payment', { key: own.live_secret_key, body: currentBody() });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, UNAUTHENTICATED);
      assert.equal((await call(ctx.gw.url, '/payment', { key: rolled.secret_key, body: currentBody() })).status, 201);
    });

    test('secret keys are stored only as hashes', async () => {
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('api_keys')
        .selectAll()
        .where('merchant_id', '=', ctx.merchant.id)
        .execute();
      const dump = JSON.stringify(rows);
      assert.ok(!dump.includes(ctx.merchant.test_secret_key));
      assert.ok(!dump.includes(ctx.merchant.live_secret_key));
    });
  });
}
