import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, parseFeePercent } from '../../src/config.ts';

test('defaults', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8000);
  assert.equal(config.publicBaseUrl, 'http://127.0.0.1:8000');
  assert.equal(config.databaseUrl, `sqlite:${path.resolve('data/lipira.db')}`);
  assert.equal(config.bodyLimitBytes, 65536);
  assert.equal(config.defaultFeeBasisPoints, 300);
  assert.equal(config.checkoutTtlMs, 86_400_000);
  assert.equal(config.databaseConnectTimeoutMs, 5_000);
  assert.equal(config.databaseQueryTimeoutMs, 10_000);
  assert.equal(config.webhookAllowLoopback, false, 'webhooks never go to loopback unless the operator says so');
  assert.equal(config.testReceiptsToCustomers, false, 'test payments mail no customer unless the operator says so');
});

test('TIMEZONE is Africa/Blantyre unless set, and a zone Intl knows, in its canonical spelling', () => {
  assert.equal(loadConfig({}).timeZone, 'Africa/Blantyre');
  assert.equal(loadConfig({ TIMEZONE: 'UTC' }).timeZone, 'UTC');
  assert.equal(loadConfig({ TIMEZONE: ' europe/london ' }).timeZone, 'Europe/London');
});

test('switches are on or off', () => {
  assert.equal(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'on' }).webhookAllowLoopback, true);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_LOOPBACK: 'off' }).webhookAllowLoopback, false);
  assert.equal(loadConfig({ TEST_RECEIPTS_TO_CUSTOMERS: 'on' }).testReceiptsToCustomers, true);
  assert.equal(loadConfig({ TEST_RECEIPTS_TO_CUSTOMERS: ' off ' }).testReceiptsToCustomers, false);
});

test('test payments settle at once and refunds give the fee back unless set otherwise', () => {
  const config = loadConfig({});
  assert.equal(config.testSettlement, 'immediate');
  assert.equal(config.refundReturnsFee, true);
  assert.equal(loadConfig({ TEST_SETTLEMENT: '10m' }).testSettlement, 600_000);
  assert.equal(loadConfig({ TEST_SETTLEMENT: ' immediate ' }).testSettlement, 'immediate');
  assert.equal(loadConfig({ REFUND_RETURNS_FEE: 'off' }).refundReturnsFee, false);
});

test('database timeouts are durations', () => {
  const config = loadConfig({ DATABASE_CONNECT_TIMEOUT: '1500ms', DATABASE_QUERY_TIMEOUT: '30s' });
  assert.equal(config.databaseConnectTimeoutMs, 1_500);
  assert.equal(config.databaseQueryTimeoutMs, 30_000);
});

test('DATABASE_URL accepts sqlite paths and postgres URLs', () => {
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/lipira.db' }).databaseUrl, 'sqlite:/var/lib/lipira.db');
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite:rel/x.db' }).databaseUrl, `sqlite:${path.resolve('rel/x.db')}`);
  assert.equal(
    loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/lipira' }).databaseUrl,
    'postgres://postgres@127.0.0.1:5432/lipira',
  );
});

test('PUBLIC_BASE_URL loses its trailing slash', () => {
  assert.equal(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl, 'https://pay.example.com');
});

test('bad settings are refused, naming the variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://host' }, 'DATABASE_URL'],
    [{ DATABASE_CONNECT_TIMEOUT: '0' }, 'DATABASE_CONNECT_TIMEOUT'],
    [{ DATABASE_QUERY_TIMEOUT: '10' }, 'DATABASE_QUERY_TIMEOUT'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: '12' }, 'BODY_LIMIT'],
    [{ DEFAULT_FEE_PERCENT: '150' }, 'DEFAULT_FEE_PERCENT'],
    [{ CHECKOUT_TTL: 'forever' }, 'CHECKOUT_TTL'],
    [{ CHECKOUT_MAX_FAILED_ATTEMPTS: '0' }, 'CHECKOUT_MAX_FAILED_ATTEMPTS'],
    [{ SANDBOX_MOBILE_DELAY: 'later' }, 'SANDBOX_MOBILE_DELAY'],
    [{ WORKERS: 'sometimes' }, 'WORKERS'],
    [{ WORKER_INTERVAL: '0' }, 'WORKER_INTERVAL'],
    [{ WEBHOOK_TIMEOUT: '15' }, 'WEBHOOK_TIMEOUT'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ EMAIL_RETRY_SCHEDULE: 'x' }, 'EMAIL_RETRY_SCHEDULE'],
    [{ SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL'],
    [{ PAYOUT_FEE_PERCENT: '200' }, 'PAYOUT_FEE_PERCENT'],
    [{ SETTLEMENT_INTERVAL: 'daily' }, 'SETTLEMENT_INTERVAL'],
    [{ TEST_SETTLEMENT: 'now' }, 'TEST_SETTLEMENT'],
    [{ TEST_SETTLEMENT: '0' }, 'TEST_SETTLEMENT'],
    [{ REFUND_RETURNS_FEE: 'yes' }, 'REFUND_RETURNS_FEE'],
    [{ RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    [{ RATE_LIMIT_BURST: 'many' }, 'RATE_LIMIT_BURST'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ REQUEST_TIMEOUT: '-1s' }, 'REQUEST_TIMEOUT'],
    [{ HEADERS_TIMEOUT: 'x' }, 'HEADERS_TIMEOUT'],
    [{ KEEP_ALIVE_TIMEOUT: 'x' }, 'KEEP_ALIVE_TIMEOUT'],
    [{ SHUTDOWN_GRACE: 'x' }, 'SHUTDOWN_GRACE'],
    [{ WEBHOOK_ALLOW_LOOPBACK: 'yes' }, 'WEBHOOK_ALLOW_LOOPBACK'],
    [{ TEST_RECEIPTS_TO_CUSTOMERS: 'true' }, 'TEST_RECEIPTS_TO_CUSTOMERS'],
    [{ TIMEZONE: 'Africa/Lilongwe_Town' }, 'TIMEZONE'],
    [{ TIMEZONE: 'CAT+2' }, 'TIMEZONE'],
    [{ LIVE_ROUTES: 'mpesa:airtel' }, 'LIVE_ROUTES'],
    [{ LIVE_ROUTES: 'tnm:airtel', AIRTEL_CLIENT_ID: 'id', AIRTEL_CLIENT_SECRET: 'secret' }, 'LIVE_ROUTES'],
    [{ LIVE_ROUTES: 'airtel:airtel,airtel:paychangu' }, 'LIVE_ROUTES'],
    [{ LIVE_ROUTES: 'airtel' }, 'LIVE_ROUTES'],
    [{ LIVE_ROUTES: 'airtel:airtel' }, 'AIRTEL_CLIENT_ID'],
    [{ LIVE_ROUTES: 'airtel:airtel', AIRTEL_CLIENT_ID: 'id' }, 'AIRTEL_CLIENT_SECRET'],
    [
      { LIVE_ROUTES: 'payout:airtel', AIRTEL_CLIENT_ID: 'id', AIRTEL_CLIENT_SECRET: 'secret' },
      'AIRTEL_DISBURSEMENT_PIN',
    ],
    [
      {
        LIVE_ROUTES: 'payout:airtel',
        AIRTEL_CLIENT_ID: 'id',
        AIRTEL_CLIENT_SECRET: 'secret',
        AIRTEL_DISBURSEMENT_PIN: '1234',
      },
      'AIRTEL_PUBLIC_KEY',
    ],
    [{ AIRTEL_PUBLIC_KEY: 'not a key' }, 'AIRTEL_PUBLIC_KEY'],
    [{ LIVE_ROUTES: 'tnm:paychangu' }, 'PAYCHANGU_UPSTREAM_SECRET_KEY'],
    [{ AIRTEL_API_URL: 'ftp://openapi.airtel.africa' }, 'AIRTEL_API_URL'],
    [{ PAYCHANGU_UPSTREAM_URL: 'api.paychangu.com' }, 'PAYCHANGU_UPSTREAM_URL'],
    [{ CONNECTOR_TIMEOUT: '0' }, 'CONNECTOR_TIMEOUT'],
    [{ LIVE_SYNC_FIRST: '1m', LIVE_SYNC_MAX: '10s' }, 'LIVE_SYNC_MAX'],
    [{ LIVE_REVIEW_AFTER: 'soon' }, 'LIVE_REVIEW_AFTER'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
      JSON.stringify(env),
    );
  }
});

test('live routes name a connector for each channel, each connector with its credentials', () => {
  assert.deepEqual(loadConfig({}).liveRoutes, {}, 'no live channel unless configured');
  const config = loadConfig({
    LIVE_ROUTES: ' airtel:airtel , payout:airtel,tnm:paychangu,card:paychangu,bank:paychangu ',
    AIRTEL_CLIENT_ID: 'id',
    AIRTEL_CLIENT_SECRET: 'secret',
    AIRTEL_DISBURSEMENT_PIN: '1234',
    AIRTEL_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----',
    PAYCHANGU_UPSTREAM_SECRET_KEY: 'sec-live-upstream',
  });
  assert.deepEqual(config.liveRoutes, {
    airtel: 'airtel',
    payout: 'airtel',
    tnm: 'paychangu',
    card: 'paychangu',
    bank: 'paychangu',
  });
  assert.equal(config.airtelApiUrl, 'https://openapi.airtel.africa');
  assert.equal(config.airtelCountry, 'MW');
  assert.equal(config.paychanguUpstreamUrl, 'https://api.paychangu.com');
});

test('fee percentages', () => {
  assert.equal(parseFeePercent('3'), 300);
  assert.equal(parseFeePercent('2.5'), 250);
  assert.equal(parseFeePercent('0'), 0);
  assert.equal(parseFeePercent('100'), 10_000);
  for (const bad of ['100.01', '-1', '1.234', 'abc', '']) assert.equal(parseFeePercent(bad), null, bad);
});
