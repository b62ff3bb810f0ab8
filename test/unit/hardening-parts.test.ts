import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { addressGroup } from '../../src/ratelimit/client-address.ts';
import { memoryBuckets } from '../../src/ratelimit/token-bucket.ts';
import { isHttpUrl, isPlainOrigin } from '../../src/shared/urls.ts';

describe('merchant URLs', () => {
  test('hosts of letters, digits, hyphens and dots, IDNs and IP literals are accepted', () => {
    for (const url of [
      'https://shop.example.com/paid?x=1',
      'http://localhost:3000',
      'https://bücher.example/',
      'https://xn--bcher-kva.example/',
      'http://10.0.0.1:8080/cb',
      'http://[2001:db8::1]/',
      'https://Shop.Example.COM./x',
      'https://user:pa;ss@shop.example.com/',
    ]) {
      assert.ok(isHttpUrl(url), url);
    }
  });

  test('hosts WHATWG URL accepts but no DNS name has are refused', () => {
    for (const url of [
      'https://a;frame-ancestors/',
      'https://a,b/',
      "https://a'b/",
      'https://a*b/',
      'https://a_b/',
      'https://a!b/',
      'https://a..b/',
      'https://.a/',
      'https://a{b}/',
      'https://a`b/',
      'ftp://a.example/',
      'https://',
      '//a.example/',
    ]) {
      assert.ok(!isHttpUrl(url), url);
    }
  });

  test('a plain origin is a scheme, a plain host and maybe a port, nothing else', () => {
    for (const origin of [
      'https://shop.example.com',
      'http://127.0.0.1:8000',
      'http://[::1]:3000',
      'https://xn--bcher-kva.example',
    ])
      assert.ok(isPlainOrigin(origin), origin);
    for (const origin of [
      'https://a;frame-ancestors',
      'https://a b',
      "'self'",
      'https://a.example/',
      'https://a.example:80x',
      'null',
      'https://a.example; script-src *',
      'javascript://a',
    ]) {
      assert.ok(!isPlainOrigin(origin), origin);
    }
  });
});

describe('client addresses for rate limits', () => {
  test('IPv4 stands alone, also when written as IPv4-mapped IPv6', () => {
    assert.equal(addressGroup('203.0.113.7'), '203.0.113.7');
    assert.equal(addressGroup('::ffff:203.0.113.7'), '203.0.113.7');
  });

  test('IPv6 is counted by its /64, however it is written', () => {
    const group = '2001:db8:a:b::/64';
    for (const address of [
      '2001:db8:a:b::1',
      '2001:0db8:000a:000b:ffff:ffff:ffff:ffff',
      '2001:DB8:A:B:1:2:3:4',
      '2001:db8:a:b::1.2.3.4',
      '2001:db8:a:b::9%eth0',
    ]) {
      assert.equal(addressGroup(address), group, address);
    }
    assert.equal(addressGroup('::1'), '0:0:0:0::/64');
    assert.equal(addressGroup('2001:db8::'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('1::2:3:4:5:6:7'), '1:0:2:3::/64');
    assert.notEqual(addressGroup('2001:db8:a:c::1'), group);
  });

  test('whatever a misconfigured header carries makes a short key', () => {
    assert.equal(addressGroup('x'.repeat(500)).length, 64);
    assert.equal(addressGroup(`${'y:'.repeat(300)}z`).length, 64);
  });
});

describe('buckets in memory', () => {
  test('stay bounded when every bucket is busy, and still let new clients in', () => {
    let time = 0;
    const store = memoryBuckets({ ratePerSecond: 1, capacity: 5 }, () => time);
    for (let client = 0; client < 30_000; client += 1) {
      time += 0.001;
      const taken = store.take(`client-${client}`);
      assert.ok(taken && !(taken instanceof Promise) && taken.allowed, `client ${client}`);
    }
    // The latest clients kept their buckets: their next request draws on what they have left.
    const again = store.take('client-29999');
    assert.ok(again && !(again instanceof Promise));
    assert.equal(Math.floor(again.tokens), 3);
  });
});

describe('abuse limit settings', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.equal(config.maxConnections, 2048);
    assert.equal(config.maxConnectionsPerAddress, 256);
    assert.equal(config.rateLimitPerAddressPerSecond, 100);
    assert.equal(config.rateLimitAddressBurst, 400);
    assert.equal(config.clientAddressHeader, null);
  });

  test('a trusted proxy header is a header name, kept in lowercase', () => {
    assert.equal(loadConfig({ CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' }).clientAddressHeader, 'x-forwarded-for');
  });

  test('bad values are refused, naming the variable', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS'],
      [{ MAX_CONNECTIONS: 'lots' }, 'MAX_CONNECTIONS'],
      [{ MAX_CONNECTIONS_PER_ADDRESS: '0' }, 'MAX_CONNECTIONS_PER_ADDRESS'],
      [{ RATE_LIMIT_PER_ADDRESS_PER_SECOND: '0' }, 'RATE_LIMIT_PER_ADDRESS_PER_SECOND'],
      [{ RATE_LIMIT_ADDRESS_BURST: '-1' }, 'RATE_LIMIT_ADDRESS_BURST'],
      [{ CLIENT_ADDRESS_HEADER: 'x-forwarded-for: 1.2.3.4' }, 'CLIENT_ADDRESS_HEADER'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        variable,
      );
    }
  });
});
