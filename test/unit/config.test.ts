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
});

test('DATABASE_URL accepts sqlite paths and postgres URLs', () => {
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/lipira.db' }).databaseUrl, 'sqlite:/var/lib/lipira.db');
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite:rel/x.db' }).databaseUrl, `sqlite:${path.resolve('rel/x.db')}`);
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/lipira' }).databaseUrl, 'postgres://postgres@127.0.0.1:5432/lipira');
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
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: '12' }, 'BODY_LIMIT'],
    [{ DEFAULT_FEE_PERCENT: '150' }, 'DEFAULT_FEE_PERCENT'],
    [{ CHECKOUT_TTL: 'forever' }, 'CHECKOUT_TTL'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && error.variable === variable && error.message.includes(variable), JSON.stringify(env));
  }
});

test('fee percentages', () => {
  assert.equal(parseFeePercent('3'), 300);
  assert.equal(parseFeePercent('2.5'), 250);
  assert.equal(parseFeePercent('0'), 0);
  assert.equal(parseFeePercent('100'), 10_000);
  for (const bad of ['100.01', '-1', '1.234', 'abc', '']) assert.equal(parseFeePercent(bad), null, bad);
});
