import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody, without } from '../helpers/fixtures.ts';
import { call, useTestGateway, type ApiResponse } from '../helpers/gateway.ts';
import { chargeBody, payoutBody } from '../helpers/mobile-money.ts';

/** A body's JSON text with members added as written: JSON.stringify cannot write a `__proto__` key. */
function withMembers(body: Record<string, unknown>, ...members: string[]): string {
  return `${JSON.stringify(body).slice(0, -1)},${members.join(',')}}`;
}

/** The ways JSON can spell `__proto__`: as itself, and with any of its characters escaped. */
const PROTO_SPELLINGS = [
  '"__proto__"',
  '"\\u005f_proto__"',
  '"__pr\\u006fto__"',
  '"\\u005F\\u005Fproto\\u005F\\u005F"',
];

/** Every create route, with a valid body, the fields a `__proto__` member will carry instead, and where the record would be read back. */
const CREATES = [
  {
    route: '/payment',
    body: currentBody,
    moved: ['callback_url', 'return_url'],
    ref: 'tx_ref',
    readBack: (ref: string) => `/verify-payment/${ref}`,
  },
  {
    route: '/api/payment',
    body: legacyBody,
    moved: ['first_name', 'email'],
    ref: 'tx_ref',
    readBack: (ref: string) => `/api/verify-payment/${ref}`,
  },
  {
    route: '/mobile-money/payments/initialize',
    body: chargeBody,
    moved: ['mobile', 'amount'],
    ref: 'charge_id',
    readBack: (ref: string) => `/mobile-money/payments/${ref}/verify`,
  },
  {
    route: '/mobile-money/payouts/initialize',
    body: payoutBody,
    moved: ['mobile', 'amount'],
    ref: 'charge_id',
    readBack: (ref: string) => `/mobile-money/payments/${ref}/details`,
  },
];

function assertRefused(response: ApiResponse, message: Record<string, string[]>): void {
  assert.equal(response.status, 400, response.text);
  assert.deepEqual(response.body, { status: 'failed', message, data: null });
}

/** A CSP header as its directives: name → value, failing on any directive named twice. */
function cspDirectives(header: string): Map<string, string> {
  const directives = new Map<string, string>();
  for (const part of header.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    assert.ok(name && !directives.has(name), `directive ${name} once: ${header}`);
    directives.set(name, values.join(' '));
  }
  return directives;
}

const SAFE_CSP = [
  'default-src',
  'script-src',
  'style-src',
  'img-src',
  'connect-src',
  'form-action',
  'frame-ancestors',
  'base-uri',
];

for (const kind of DATABASE_KINDS) {
  describe(`hostile request bodies on ${kind}`, () => {
    const ctx = useTestGateway(kind);
    const send = (route: string, rawBody: string) =>
      call(ctx.gw.url, route, {
        key: ctx.merchant.test_secret_key,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });

    test('a __proto__ member carrying required fields is a 400 naming it on every create route, and nothing is written', async () => {
      for (const { route, body, moved, ref, readBack } of CREATES) {
        for (const spelling of PROTO_SPELLINGS) {
          const full = body();
          const hidden = Object.fromEntries(moved.map((field) => [field, full[field]]));
          const sent = moved.reduce((rest, field) => without(rest, field), full);
          const response = await send(route, withMembers(sent, `${spelling}:${JSON.stringify(hidden)}`));
          assertRefused(response, { ['__proto__']: ['The __proto__ field is not allowed.'] });
          const stored = await call(ctx.gw.url, readBack(String(full[ref])), { key: ctx.merchant.test_secret_key });
          assert.equal(stored.status, 404, `${route} wrote nothing: ${stored.text}`);
        }
      }
    });

    test('a __proto__ member of any value, at any depth, is a 400 naming its path, never a 500', async () => {
      for (const { route, body } of CREATES) {
        for (const value of ['1', 'null', '[]', '"x"', '{"toString":1}']) {
          assertRefused(await send(route, withMembers(body(), `"__proto__":${value}`)), {
            ['__proto__']: ['The __proto__ field is not allowed.'],
          });
        }
        assertRefused(await send(route, withMembers(body(), '"customer":{"__proto__":{"first_name":"N"}}')), {
          'customer.__proto__': ['The customer.__proto__ field is not allowed.'],
        });
        assertRefused(await send(route, withMembers(body(), '"extra":{"list":[{"\\u005f_proto__":{}}]}')), {
          'extra.list.0.__proto__': ['The extra.list.0.__proto__ field is not allowed.'],
        });
      }
    });

    test('constructor and prototype stay plain keys: kept in meta, never standing in for a field', async () => {
      const meta = { constructor: 'c', prototype: { x: 1 }, toString: 't', hasOwnProperty: 0 };
      const body = currentBody({ meta, customization: { title: 'T', constructor: 'x' } });
      const created = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });
      assert.equal(created.status, 201, created.text);
      const verified = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.deepEqual(verified.body.data.meta, meta);

      const missing = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        body: {
          ...without(currentBody(), 'callback_url'),
          constructor: { callback_url: 'https://shop.example.com/paid' },
        },
      });
      assertRefused(missing, { callback_url: ['The callback url field is required.'] });
    });

    test('nesting 20,000 levels deep under an unknown key is a 400 naming the field, on every create route', async () => {
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      for (const { route, body } of CREATES) {
        assertRefused(await send(route, withMembers(body(), `"x":${deep}`)), {
          x: ['The x must not be nested more than 32 levels deep.'],
        });
      }
      const customization = await send(
        '/payment',
        withMembers(without(currentBody(), 'customization'), `"customization":{"title":"T","x":${deep}}`),
      );
      assertRefused(customization, {
        customization: ['The customization must not be nested more than 32 levels deep.'],
      });
    });

    test('32 levels of nesting, the body included, are accepted; 33 are not', async () => {
      const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      // The body is the first level, meta the second.
      const deepest = currentBody({ meta: 0 });
      const accepted = await send('/payment', JSON.stringify(deepest).replace('"meta":0', `"meta":${nested(31)}`));
      assert.equal(accepted.status, 201, accepted.text);
      const refused = await send(
        '/payment',
        JSON.stringify(currentBody({ meta: 0 })).replace('"meta":0', `"meta":${nested(32)}`),
      );
      assertRefused(refused, { meta: ['The meta must not be nested more than 32 levels deep.'] });
    });
  });

  describe(`merchant URLs and the page's Content-Security-Policy on ${kind}`, () => {
    const ctx = useTestGateway(kind);
    const create = (body: Record<string, unknown>) =>
      call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body });

    test('a URL whose host holds anything but letters, digits, hyphens and dots is refused', async () => {
      for (const host of [
        'a;frame-ancestors',
        'a,b',
        "a'b",
        'a*b',
        'a_b',
        'exa$mple.com',
        'a=b',
        'a(b)',
        'a..b',
        'a{b}',
      ]) {
        const url = `https://${host}/paid`;
        assertRefused(await create(currentBody({ callback_url: url })), {
          callback_url: ['The callback url must be a valid URL.'],
        });
        assertRefused(await create(currentBody({ return_url: url })), {
          return_url: ['The return url must be a valid URL.'],
        });
      }
      const legacy = await call(ctx.gw.url, '/api/payment', {
        key: ctx.merchant.test_secret_key,
        body: legacyBody({ callback_url: 'https://a;frame-ancestors/' }),
      });
      assertRefused(legacy, { callback_url: ['The callback url must be a valid URL.'] });
    });

    test('names in any script (punycoded), IPv4 and IPv6 literals, ports and a trailing dot are accepted', async () => {
      for (const url of [
        'https://bücher.example/paid',
        'http://192.168.1.10:8080/cb',
        'http://[::1]:3000/cb',
        'https://shop.example.com./x',
        'http://localhost:3000/paid',
      ]) {
        const created = await create(currentBody({ callback_url: url }));
        assert.equal(created.status, 201, `${url}: ${created.text}`);
      }
    });

    test("a session stored before the check, with a ; in its URLs' hosts, gets a page whose CSP names only plain origins", async () => {
      const body = currentBody({
        callback_url: 'https://shop.example.com/paid',
        return_url: 'https://shop.example.com/back',
      });
      const created = await create(body);
      assert.equal(created.status, 201, created.text);
      await ctx.gw.gateway.database.db
        .updateTable('checkout_sessions')
        .set({ callback_url: 'https://a;frame-ancestors/', return_url: 'https://pay.example.com,script-src/x' })
        .where('tx_ref', '=', String(body.tx_ref))
        .execute();
      const page = await fetch(created.body.data.checkout_url);
      assert.equal(page.status, 200);
      const directives = cspDirectives(page.headers.get('content-security-policy') ?? '');
      assert.deepEqual([...directives.keys()], SAFE_CSP);
      assert.equal(directives.get('form-action'), "'self'");
      assert.equal(directives.get('frame-ancestors'), "'none'");
      assert.equal(directives.get('script-src'), "'self'");
    });

    test('plain merchant origins still go into form-action', async () => {
      const created = await create(
        currentBody({ callback_url: 'https://shop.example.com/paid', return_url: 'http://[::1]:3000/back' }),
      );
      const page = await fetch(created.body.data.checkout_url);
      assert.equal(
        cspDirectives(page.headers.get('content-security-policy') ?? '').get('form-action'),
        "'self' https://shop.example.com http://[::1]:3000",
      );
    });
  });
}
