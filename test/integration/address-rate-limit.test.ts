import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { hashKey, visiblePart } from '../../src/merchants/api-keys.ts';
import { insertApiKeys } from '../../src/merchants/merchant-repository.ts';
import { lookUpKey, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { ids } from '../../src/shared/ids.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import {
  call,
  freePort,
  startTestGateway,
  TEST_SERVER_ENV,
  type ApiResponse,
  type TestGateway,
} from '../helpers/gateway.ts';

const BURST = 10;
const LIMITS = {
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
  RATE_LIMIT_ADDRESS_BURST: String(BURST),
  CLIENT_ADDRESS_HEADER: 'x-forwarded-for',
};
const REDIS_URL = 'redis://127.0.0.1:6379';

let addresses = 0;
/** An address no other test uses, so each test has a bucket of its own. */
const freshAddress = () => `198.51.100.${(addresses += 1)}`;

/** A cheap call that needs a key: verifying a reference that does not exist (404 with a valid key, 401 without). */
const probe = (base: string, key: string, address: string) =>
  call(base, '/verify-payment/no-such-ref', { key, headers: { 'x-forwarded-for': address } });

function assertRefused(response: ApiResponse): void {
  assert.equal(response.status, 429, response.text);
  assert.deepEqual(response.body, { status: 'failed', message: 'Too many requests.', data: null });
  assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.equal(response.headers.get('ratelimit-limit'), String(BURST));
  assert.equal(response.headers.get('ratelimit-remaining'), '0');
  assert.ok(Number(response.headers.get('ratelimit-reset')) >= 1);
}

/** Makes `token` a valid test secret key of the merchant, written straight into the database. */
async function insertSecretKey(gw: TestGateway, merchant: MerchantCredentials, token: string): Promise<void> {
  await insertApiKeys(gw.gateway.database.db, [
    {
      id: ids.apiKey(),
      merchant_id: merchant.id,
      mode: 'test',
      kind: 'secret',
      visible: visiblePart(token),
      token_hash: hashKey(token),
      expires_at: null,
      created_at: Date.now(),
    },
  ]);
}

/** Tokens the bucket refilled with while `work` ran, at one a second: requests that may pass beyond the burst. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; refilled: number }> {
  const started = performance.now();
  const result = await work();
  return { result, refilled: Math.ceil((performance.now() - started) / 1000) };
}

async function sequentially(count: number, send: (n: number) => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  for (let n = 0; n < count; n += 1) responses.push(await send(n));
  return responses;
}

const statuses = (responses: ApiResponse[]) => responses.map((response) => response.status);
const countOf = (responses: ApiResponse[], status: number) =>
  responses.filter((response) => response.status === status).length;

for (const kind of DATABASE_KINDS) {
  describe(`limits by client address on ${kind}`, () => {
    let gw: TestGateway;
    let merchant: MerchantCredentials;
    before(async () => {
      gw = await startTestGateway(kind, LIMITS);
      merchant = await gw.newMerchant();
    });
    after(() => gw.close());

    test('one unknown key sent again and again: 401s within the burst, then 429s, and the database is asked once', async () => {
      const address = freshAddress();
      const key = ids.secretKey('test');
      assert.equal((await probe(gw.url, key, address)).status, 401);
      // Now the key is valid: any later request that reached the database would be let in (404).
      await insertSecretKey(gw, merchant, key);
      const { result: responses, refilled } = await timed(() => sequentially(40, () => probe(gw.url, key, address)));
      assert.deepEqual(
        [...new Set(statuses(responses))].sort(),
        [401, 429],
        `every answer came from memory: ${statuses(responses).join()}`,
      );
      assert.ok(countOf(responses, 401) <= BURST - 1 + refilled, statuses(responses).join());
      for (const refused of responses.filter((response) => response.status === 429)) assertRefused(refused);

      // The key written above is valid for the lookup the gateway makes: a process that had not
      // just been told otherwise finds it.
      const other = await openMigratedDatabase(gw.database.url);
      try {
        assert.deepEqual(await lookUpKey(other.db, key, Date.now()), { merchantId: merchant.id, mode: 'test' });
      } finally {
        await other.close();
      }
    });

    test('made-up keys past the burst are refused before they are looked up', async () => {
      const address = freshAddress();
      const guesses = Array.from({ length: 3 * BURST }, () => ids.secretKey('test'));
      // All but the first burst's worth are valid keys: a request that reached the database would be let in.
      for (const key of guesses.slice(BURST)) await insertSecretKey(gw, merchant, key);
      const { result: responses, refilled } = await timed(() =>
        sequentially(guesses.length, (n) => probe(gw.url, guesses[n]!, address)),
      );
      assert.deepEqual(statuses(responses).slice(0, BURST), Array(BURST).fill(401));
      const lookedUp = BURST + countOf(responses, 404);
      assert.ok(
        countOf(responses, 404) <= refilled,
        `${lookedUp} of ${guesses.length} requests reached the database: ${statuses(responses).join()}`,
      );
      for (const refused of responses.slice(BURST).filter((response) => response.status !== 404))
        assertRefused(refused);
    });

    test('hosted pages are limited per client address, the address being the last X-Forwarded-For entry', async () => {
      const created = await call(gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody() });
      assert.equal(created.status, 201, created.text);
      const page = (forwardedFor: string) =>
        call(gw.url, new URL(created.body.data.checkout_url).pathname, {
          headers: { 'x-forwarded-for': forwardedFor },
        });
      const [busy, other] = [freshAddress(), freshAddress()];
      const { result: responses, refilled } = await timed(() => sequentially(BURST + 5, () => page(busy)));
      assert.deepEqual(statuses(responses).slice(0, BURST), Array(BURST).fill(200));
      assert.ok(countOf(responses, 429) >= 5 - refilled, statuses(responses).join());
      assertRefused(responses.at(-1)!);
      assert.equal((await page(other)).status, 200, 'another address has its own bucket');
      assertRefused(await page(`${other}, ${busy}`));
      assert.equal(
        (await page(`${busy}, ${other}`)).status,
        200,
        "what the client wrote before the proxy's entry does not count",
      );
    });

    test('a merchant with a valid key is not limited by its address, nor are health probes', async () => {
      const address = freshAddress();
      // Until refused: on a loaded machine the bucket refills while the burst is sent.
      const emptyTheBucket = async () => {
        let last: ApiResponse | undefined;
        for (let sent = 0; sent < 3 * BURST && last?.status !== 429; sent += 1)
          last = await probe(gw.url, ids.secretKey('test'), address);
        assertRefused(last!);
      };
      assert.equal((await probe(gw.url, merchant.test_secret_key, address)).status, 404);
      await emptyTheBucket();
      const merchantCalls = await sequentially(3 * BURST, () => probe(gw.url, merchant.test_secret_key, address));
      assert.deepEqual([...new Set(statuses(merchantCalls))], [404]);
      // Past the second for which a key is remembered, it is looked up again: still not limited by address.
      await sleep(1_100);
      await emptyTheBucket();
      assert.equal((await probe(gw.url, merchant.test_secret_key, address)).status, 404);
      for (const path of ['/healthz', '/readyz']) {
        assert.equal((await call(gw.url, path, { headers: { 'x-forwarded-for': address } })).status, 200, path);
      }
    });
  });

  describe(`limits by client address shared through Redis on ${kind}`, () => {
    let gw: TestGateway;
    let second: Gateway;
    let redis: Redis;
    before(async () => {
      gw = await startTestGateway(kind, { ...LIMITS, REDIS_URL });
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

    test('two gateways share one bucket per address', async () => {
      // Addresses of their own: Redis outlives the test run's other gateways.
      const address = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}::1`;
      const { result: responses, refilled } = await timed(() =>
        sequentially(2 * BURST, (n) =>
          call(n % 2 ? second.url : gw.url, '/mobile-money', { headers: { 'x-forwarded-for': address } }),
        ),
      );
      assert.ok(
        countOf(responses, 200) <= BURST + refilled,
        `without sharing, all ${2 * BURST} would pass: ${statuses(responses).join()}`,
      );
      for (const refused of responses.filter((response) => response.status !== 200)) assertRefused(refused);
      const prefix = address.split('::')[0]!;
      assert.ok(
        (await redis.pttl(`lipira:ratelimit:address:${prefix}:0::/64`)) > 0,
        "the bucket is kept under the address's /64",
      );
    });
  });
}

describe('limits by client address without a trusted proxy header', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway('sqlite', {
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
      RATE_LIMIT_ADDRESS_BURST: String(BURST),
    });
  });
  after(() => gw.close());

  test('X-Forwarded-For is not believed: every request from this host shares its bucket', async () => {
    const { result: responses, refilled } = await timed(() =>
      sequentially(BURST + 5, () => call(gw.url, '/mobile-money', { headers: { 'x-forwarded-for': freshAddress() } })),
    );
    assert.ok(countOf(responses, 429) >= 5 - refilled, statuses(responses).join());
    assertRefused(responses.at(-1)!);
  });
});
