import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, startTestGateway, useTestGateway, type ApiRequest } from '../helpers/gateway.ts';
import { randomBase62 } from '../../src/shared/ids.ts';

const HSTS = 'max-age=31536000';
/** Each keyless request below comes from an address of its own, except the ones meant to be limited. */
const LIMITS = {
  CLIENT_ADDRESS_HEADER: 'x-forwarded-for',
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
  RATE_LIMIT_ADDRESS_BURST: '2',
};

const fromAddress = (address: string): Record<string, string> => ({ 'x-forwarded-for': address });
let nextAddress = 0;
const freshAddress = () => fromAddress(`198.51.100.${++nextAddress}`);

/** The head of what the server answers to `bytes` sent as they are, lowercased. */
function rawHead(url: string, bytes: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase()));
  });
}

/** The JSON answers of the API, successes and every kind of error, as [what, status, request]. */
function apiAnswers(key: string): Array<[string, number, string, ApiRequest]> {
  return [
    ['liveness', 200, '/healthz', {}],
    ['a session created', 201, '/payment', { key, body: currentBody() }],
    ['a validation error', 400, '/payment', { key, body: { amount: 'lots' } }],
    [
      'a body that is not an object',
      400,
      '/payment',
      { key, rawBody: '[1]', headers: { 'content-type': 'application/json' } },
    ],
    ['an unknown key', 401, '/verify-payment/x', { key: `sec-test-${randomBase62(32)}`, headers: freshAddress() }],
    ['an unknown route', 404, '/no/such/route', { headers: freshAddress() }],
    ['a path that cannot be decoded', 404, '/verify-payment/%E0%A4%A', { key }],
    ['an unknown transaction', 404, '/verify-payment/nothing-like-it', { key }],
    ['a wrong method', 405, '/payment', { method: 'DELETE', key }],
  ];
}

for (const kind of DATABASE_KINDS) {
  describe(`the API's answers on ${kind}`, () => {
    const ctx = useTestGateway(kind, LIMITS);

    test('JSON answers, errors included, say nosniff and no-store, and no HSTS without an https PUBLIC_BASE_URL', async () => {
      for (const [what, status, path, request] of apiAnswers(ctx.merchant.test_secret_key)) {
        const res = await call(ctx.gw.url, path, request);
        assert.equal(res.status, status, `${what}: ${res.text}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
        assert.equal(res.headers.get('cache-control'), 'no-store', what);
        assert.equal(res.headers.get('strict-transport-security'), null, what);
      }
    });

    test('a refusal by the address limit (429) says nosniff and no-store too', async () => {
      const limited = fromAddress('203.0.113.99');
      let res = await call(ctx.gw.url, '/no/such/route', { headers: limited });
      for (let tries = 0; res.status !== 429 && tries < 5; tries++)
        res = await call(ctx.gw.url, '/no/such/route', { headers: limited });
      assert.equal(res.status, 429, res.text);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('cache-control'), 'no-store');
    });

    test('a request the HTTP parser refuses (400) is answered with them as well', async () => {
      const head = await rawHead(ctx.gw.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      assert.match(head, /^http\/1\.1 400 /);
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/);
      assert.match(head, /\r\ncache-control: no-store\r\n/);
    });

    test('pages keep their own policy and assets their caching; the API document may be cached for five minutes', async () => {
      const page = await call(ctx.gw.url, '/sandbox/landing', { headers: freshAddress() });
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      const stylesheet = await call(ctx.gw.url, '/sandbox/sandbox.css', { headers: freshAddress() });
      assert.equal(stylesheet.headers.get('cache-control'), 'public, max-age=3600');
      const document = await call(ctx.gw.url, '/openapi.json', { headers: freshAddress() });
      assert.equal(document.status, 200);
      assert.equal(document.headers.get('cache-control'), 'public, max-age=300');
      assert.equal(document.headers.get('x-content-type-options'), 'nosniff');
    });
  });

  describe(`the answers of a gateway whose PUBLIC_BASE_URL is https on ${kind}`, () => {
    const ctx = useTestGateway(kind, { ...LIMITS, PUBLIC_BASE_URL: 'https://pay.example.com' });

    test('every answer says Strict-Transport-Security: JSON, errors, pages, and what the HTTP parser refuses', async () => {
      for (const [what, status, path, request] of apiAnswers(ctx.merchant.test_secret_key)) {
        const res = await call(ctx.gw.url, path, request);
        assert.equal(res.status, status, `${what}: ${res.text}`);
        assert.equal(res.headers.get('strict-transport-security'), HSTS, what);
      }
      const page = await call(ctx.gw.url, '/sandbox/landing', { headers: freshAddress() });
      assert.equal(page.headers.get('strict-transport-security'), HSTS, 'a page');
      const refused = await rawHead(ctx.gw.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      assert.match(refused, /\r\nstrict-transport-security: max-age=31536000\r\n/);
    });
  });

  describe(`a gateway shutting down on ${kind}`, () => {
    test('its readiness refusal (503) says nosniff, no-store and, with https, HSTS', async () => {
      const gw = await startTestGateway(kind, { PUBLIC_BASE_URL: 'https://pay.example.com', SHUTDOWN_GRACE: '2s' });
      const closed = gw.close();
      try {
        const res = await call(gw.url, '/readyz');
        assert.equal(res.status, 503, res.text);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.equal(res.headers.get('strict-transport-security'), HSTS);
      } finally {
        await closed;
      }
    });
  });
}
