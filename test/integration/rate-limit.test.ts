import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { startGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { legacyBody } from '../helpers/fixtures.ts';
import {
  call,
  freePort,
  startTestGateway,
  TEST_SERVER_ENV,
  type ApiResponse,
  type TestGateway,
} from '../helpers/gateway.ts';

/**
 * A burst of 5 refilled at the slowest rate the gateway accepts, one a second: the tests' quick
 * sequential calls must end before a token comes back, and at 5 a second a loaded machine took
 * longer than the 200 ms that allowed (the sixth call was served).
 */
const RATE = 1;
const BURST = 5;
const LIMITS = { RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(BURST) };
const REDIS_URL = 'redis://127.0.0.1:6379';
const ENVELOPE = { status: 'failed', message: 'Too many requests.', data: null };

/** A cheap call to a route that needs a key: verifying a reference that does not exist (404). */
const probe = (base: string, key: string) => call(base, '/verify-payment/no-such-ref', { key });

function assertLimitHeaders(response: ApiResponse, remaining: number): void {
  assert.equal(response.headers.get('ratelimit-limit'), '5');
  assert.equal(response.headers.get('ratelimit-remaining'), String(remaining));
  assert.ok(
    Number(response.headers.get('ratelimit-reset')) >= 1,
    `RateLimit-Reset is whole seconds: ${response.headers.get('ratelimit-reset')}`,
  );
}

function assertRefused(response: ApiResponse): void {
  assert.equal(response.status, 429, response.text);
  assert.deepEqual(response.body, ENVELOPE);
  assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assertLimitHeaders(response, 0);
}

/** Uses up a key's burst of 5 with quick sequential calls; the 6th is refused. */
async function exhaust(base: string, key: string): Promise<ApiResponse> {
  for (let n = 1; n <= 5; n += 1) {
    const response = await probe(base, key);
    assert.equal(response.status, 404, response.text);
    assertLimitHeaders(response, 5 - n);
  }
  const refused = await probe(base, key);
  assertRefused(refused);
  return refused;
}

for (const kind of DATABASE_KINDS) {
  describe(`rate limits in memory on ${kind}`, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind, LIMITS);
    });
    after(() => gw.close());

    test('a key gets its burst, then 429 with the envelope, Retry-After and RateLimit headers', async () => {
      const merchant = await gw.newMerchant();
      await exhaust(gw.url, merchant.test_secret_key);
    });

    test('other keys keep their own buckets', async () => {
      const [busy, other] = [await gw.newMerchant(), await gw.newMerchant()];
      await exhaust(gw.url, busy.test_secret_key);
      const unaffected = await probe(gw.url, other.test_secret_key);
      assert.equal(unaffected.status, 404);
      assertLimitHeaders(unaffected, 4);
      const liveMode = await probe(gw.url, busy.live_secret_key);
      assert.equal(liveMode.status, 404, 'the live key is limited apart from the test key');
    });

    test('after Retry-After the key is served again', async () => {
      const merchant = await gw.newMerchant();
      const refused = await exhaust(gw.url, merchant.test_secret_key);
      await sleep(Number(refused.headers.get('retry-after')) * 1000);
      assert.equal((await probe(gw.url, merchant.test_secret_key)).status, 404);
    });

    test('a legacy key in the body is limited too, and invalid requests count', async () => {
      const merchant = await gw.newMerchant();
      const invalid = await call(gw.url, '/api/payment', {
        body: legacyBody({ secret_key: merchant.test_secret_key, amount: 'lots' }),
      });
      assert.equal(invalid.status, 400, invalid.text);
      assertLimitHeaders(invalid, 4);
      for (let n = 2; n <= 5; n += 1) {
        const created = await call(gw.url, '/api/payment', {
          body: legacyBody({ secret_key: merchant.test_secret_key }),
        });
        assert.equal(created.status, 201, created.text);
        assertLimitHeaders(created, 5 - n);
      }
      assertRefused(await call(gw.url, '/api/payment', { body: legacyBody({ secret_key: merchant.test_secret_key }) }));
    });

    test('routes without a key, and refused keys, are not limited by key', async () => {
      const merchant = await gw.newMerchant();
      await exhaust(gw.url, merchant.test_secret_key);
      for (const path of ['/healthz', '/mobile-money', '/metrics']) {
        const response = await call(gw.url, path, { key: merchant.test_secret_key });
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        assert.equal(response.headers.get('ratelimit-limit'), null, `${path} has no RateLimit headers`);
      }
      const wrongKey = await probe(gw.url, 'sec-test-not-a-real-key');
      assert.equal(wrongKey.status, 401);
      assert.equal(wrongKey.headers.get('ratelimit-limit'), null);
    });
  });

  describe(`rate limits shared through Redis on ${kind}`, () => {
    let gw: TestGateway;
    let second: Gateway;
    let redis: Redis;
    before(async () => {
      gw = await startTestGateway(kind, { ...LIMITS, REDIS_URL });
      // A second process over the same database and Redis.
      const config = loadConfig({
        ...TEST_SERVER_ENV,
        ...LIMITS,
        REDIS_URL,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        DATABASE_URL: gw.database.url,
        LOG_LEVEL: 'silent',
        SHUTDOWN_GRACE: '0',
      });
      second = await startGateway(config, await openMigratedDatabase(config.databaseUrl), false);
      redis = new Redis(REDIS_URL);
    });
    after(async () => {
      redis.disconnect();
      await second.close();
      await gw.close();
    });

    test('two gateways share one limit per key', async () => {
      const merchant = await gw.newMerchant();
      const started = performance.now();
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, n) => probe(n % 2 ? second.url : gw.url, merchant.test_secret_key)),
      );
      const elapsedSeconds = (performance.now() - started) / 1000;
      const served = responses.filter((response) => response.status === 404).length;
      // The burst, plus whatever trickled in while the requests were on their way; without sharing, up to 10.
      assert.ok(
        served >= BURST && served <= BURST + Math.ceil(elapsedSeconds * RATE),
        `served ${served} in ${elapsedSeconds.toFixed(3)} s`,
      );
      for (const refused of responses.filter((response) => response.status !== 404)) assertRefused(refused);

      const bucket = `lipira:ratelimit:${merchant.id}:test`;
      const ttl = await redis.pttl(bucket);
      assert.ok(
        ttl > 0 && ttl <= (BURST / RATE + 1) * 1000,
        `the bucket expires a second after it would be full again (pttl ${ttl})`,
      );
    });

    test('the shared bucket refills', async () => {
      const merchant = await gw.newMerchant();
      const refused = await exhaust(second.url, merchant.test_secret_key);
      assertRefused(await probe(gw.url, merchant.test_secret_key));
      await sleep(Number(refused.headers.get('retry-after')) * 1000);
      assert.equal((await probe(gw.url, merchant.test_secret_key)).status, 404);
    });
  });
}

describe('rate limits when Redis is unreachable', () => {
  let gw: TestGateway;
  const logged: Array<{ level: number; msg: string }> = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString('utf8')));
        done();
      },
    });
    gw = await startTestGateway(
      'sqlite',
      { ...LIMITS, REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      pino({ level: 'warn' }, sink),
    );
  });
  after(() => gw.close());

  test('requests go through (fail open), with one warning for many failures', async () => {
    const merchant = await gw.newMerchant();
    for (let n = 0; n < 10; n += 1) {
      const response = await probe(gw.url, merchant.test_secret_key);
      assert.equal(response.status, 404, response.text);
      assert.equal(response.headers.get('ratelimit-limit'), null, 'no numbers to tell');
    }
    const warnings = logged.filter((line) => line.msg.includes('rate limiter'));
    assert.equal(warnings.length, 1, JSON.stringify(logged));
    assert.equal(warnings[0]!.level, 40);
  });
});
