import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CheckoutClient, textOf, type PageResponse } from '../helpers/checkout-client.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, uniqueRef } from '../helpers/fixtures.ts';
import { call, refusedKeyBody, startTestGateway, useTestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';

const SHOP = 'http://shop.example.com:8080';
const PUBLIC_KEY_REFUSED = refusedKeyBody('pub-');
const SECRET_KEY_REFUSED = {
  status: 'failed',
  message: 'This route takes a public key: a secret key must never be sent from a browser.',
  data: null,
};
const UNAUTHENTICATED = { status: 'failed', message: 'Unauthenticated.', data: null };

/** An HTML checkout form as a shop would post it. */
async function postForm(base: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/hosted-payment-page`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SHOP },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

function formFields(publicKey: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    public_key: publicKey,
    tx_ref: uniqueRef('form'),
    amount: '2500',
    currency: 'MWK',
    callback_url: `${SHOP}/paid`,
    return_url: `${SHOP}/cancelled`,
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Phiri',
    title: 'Order 12',
    description: 'Three bags of rice',
    'meta[order]': '12',
    ...overrides,
  };
}

for (const kind of DATABASE_KINDS) {
  describe(`the browser integrations on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '100ms', ...LIVE_SESSIONS_ONLY });

    async function popupSession(
      body = currentBody(),
      key = ctx.merchant.test_public_key,
      origin: string | null = SHOP,
    ) {
      const created = await call(ctx.gw.url, '/popup/payment', { key, body, headers: origin ? { origin } : {} });
      assert.equal(created.status, 201, created.text);
      return { created, body, pagePath: new URL(created.body.data.checkout_url).pathname };
    }

    async function verify(txRef: string, key = ctx.merchant.test_secret_key) {
      const res = await call(ctx.gw.url, `/verify-payment/${txRef}`, { key });
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    }

    test('a public key creates a session in its mode, the same as any other, and the answer is readable by the calling page', async () => {
      for (const [key, mode] of [
        [ctx.merchant.test_public_key, 'test'],
        [ctx.merchant.live_public_key, 'live'],
      ] as const) {
        const { created, body } = await popupSession(currentBody(), key);
        assert.equal(created.body.status, 'success');
        assert.equal(created.body.data.data.mode, mode);
        assert.equal(created.body.data.data.tx_ref, body.tx_ref);
        assert.equal(created.headers.get('access-control-allow-origin'), SHOP);
        assert.match(created.headers.get('vary') ?? '', /Origin/);
        const verified = await verify(
          String(body.tx_ref),
          mode === 'test' ? ctx.merchant.test_secret_key : ctx.merchant.live_secret_key,
        );
        assert.equal(verified.status, 'pending');
        assert.deepEqual(verified.customization, { title: 'Order 7', description: 'Two bags of maize', logo: null });
      }
    });

    test('a retry of the same popup create is answered as the first; a different one with the same tx_ref is a duplicate', async () => {
      const { created, body } = await popupSession();
      const again = await call(ctx.gw.url, '/popup/payment', {
        key: ctx.merchant.test_public_key,
        body,
        headers: { origin: SHOP },
      });
      assert.equal(again.status, 201);
      assert.equal(again.body.data.checkout_url, created.body.data.checkout_url);
      const other = await call(ctx.gw.url, '/popup/payment', {
        key: ctx.merchant.test_public_key,
        body: { ...body, amount: 5 },
      });
      assert.equal(other.status, 400);
      assert.deepEqual(other.body.message, { tx_ref: ['The tx ref has already been taken.'] });
    });

    test("the CORS preflight allows any page to call with its key, naming that page's origin and never *", async () => {
      const preflight = await fetch(`${ctx.gw.url}/popup/payment`, {
        method: 'OPTIONS',
        headers: {
          origin: SHOP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP);
      assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/);
      const opaque = await fetch(`${ctx.gw.url}/popup/payment`, { method: 'OPTIONS', headers: { origin: 'null' } });
      assert.equal(opaque.headers.get('access-control-allow-origin'), null, 'a sandboxed or file page gets no grant');
      // Refusals carry the grant too, so the page's script can say why.
      const refused = await call(ctx.gw.url, '/popup/payment', {
        key: `pub-test-${'A'.repeat(32)}`,
        body: currentBody(),
        headers: { origin: SHOP },
      });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('access-control-allow-origin'), SHOP);
      // The secret API gives browsers no grant.
      const secretRoute = await fetch(`${ctx.gw.url}/payment`, { method: 'OPTIONS', headers: { origin: SHOP } });
      assert.equal(secretRoute.headers.get('access-control-allow-origin'), null);
    });

    test('the popup route refuses secret keys, unknown and missing keys', async () => {
      const secret = await call(ctx.gw.url, '/popup/payment', {
        key: ctx.merchant.test_secret_key,
        body: currentBody(),
        headers: { origin: SHOP },
      });
      assert.equal(secret.status, 401);
      assert.deepEqual(secret.body, SECRET_KEY_REFUSED);
      for (const key of [`pub-test-${'B'.repeat(32)}`, 'pub-test-short', null]) {
        const res = await call(ctx.gw.url, '/popup/payment', { key, body: currentBody() });
        assert.equal(res.status, 401, String(key));
        assert.deepEqual(res.body, UNAUTHENTICATED);
      }
    });

    test('a public key is refused, by name, on every route that takes a secret key', async () => {
      // HEAD answers carry no body: their GET twins are checked.
      const secretRoutes = ctx.gw.gateway.routes.filter(
        (route) => (route.auth === 'secret' || route.auth === 'secret-or-body') && route.method !== 'HEAD',
      );
      assert.ok(secretRoutes.length >= 15, `the secret routes are listed (${secretRoutes.length})`);
      const sample: Record<string, string> = {
        tx_ref: 'tx-1',
        charge_id: 'ch-1',
        id: 'x',
        chargeId: 'x',
        refund_id: 'x',
        ref_id: 'x',
        uuid: 'x',
      };
      for (const route of secretRoutes) {
        const path = route.url.replace(/:(\w+)/g, (_, name: string) => sample[name] ?? 'x');
        const res = await call(ctx.gw.url, path, {
          method: route.method,
          key: ctx.merchant.test_public_key,
          body: route.method === 'POST' ? {} : undefined,
        });
        assert.equal(res.status, 401, `${route.method} ${route.url}`);
        assert.deepEqual(res.body, PUBLIC_KEY_REFUSED, `${route.method} ${route.url}`);
      }
      const legacyBodyKey = await call(ctx.gw.url, '/api/payment', {
        body: { secret_key: ctx.merchant.test_public_key },
      });
      assert.deepEqual(legacyBodyKey.body, PUBLIC_KEY_REFUSED, 'nor as the legacy body key');
    });

    test('only a session made by the popup may be framed, and only by the origin that made it', async () => {
      const framed = await popupSession();
      const page = await new CheckoutClient(ctx.gw.url).get(framed.pagePath);
      assert.equal(page.status, 200);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.match(csp, new RegExp(`frame-ancestors ${SHOP};`));
      assert.doesNotMatch(csp, /frame-ancestors[^;]*\*/);
      assert.equal(page.headers.get('x-frame-options'), null);

      const viaApi = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        body: currentBody(),
        headers: { origin: SHOP },
      });
      const fromForm = await postForm(ctx.gw.url, formFields(ctx.merchant.test_public_key));
      const withoutOrigin = await popupSession(currentBody(), ctx.merchant.test_public_key, null);
      const hostile = await popupSession(currentBody(), ctx.merchant.test_public_key, 'https://a.example;script-src *');
      for (const url of [
        viaApi.body.data.checkout_url,
        fromForm.headers.get('location')!,
        withoutOrigin.created.body.data.checkout_url,
        hostile.created.body.data.checkout_url,
      ]) {
        const other = await fetch(url);
        assert.match(other.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, url);
        assert.equal(other.headers.get('x-frame-options'), 'DENY');
      }
    });

    test('a framed session ends on a page that posts its result to the recorded origin only', async () => {
      const { pagePath, body } = await popupSession();
      const client = new CheckoutClient(ctx.gw.url);
      await client.get(pagePath);
      const pending = await client.get(`${pagePath}/done`);
      assert.equal(pending.status, 303, 'a pending session has no result yet');
      const posted = await client.post(`${pagePath}/pay/mobile-money`, { mobile: '0990000000', operator: 'airtel' });
      assert.equal(posted.status, 303, posted.text);
      const attemptPath = new URL(posted.location!).pathname;
      const done = await awaitEnd(client, attemptPath);
      assert.equal(done.status, 200, done.text);
      assert.match(done.headers.get('content-security-policy') ?? '', new RegExp(`frame-ancestors ${SHOP};`));
      const holder = /id="frame-result" data-origin="([^"]+)" data-result="([^"]+)"/.exec(done.text);
      assert.ok(holder, 'the page carries the result for its script');
      assert.equal(textOf(holder[1]!), SHOP);
      const result = JSON.parse(textOf(holder[2]!));
      const verified = await verify(String(body.tx_ref));
      assert.deepEqual(result, {
        tx_ref: body.tx_ref,
        status: 'success',
        transaction_id: verified.reference,
        redirect_url: `https://shop.example.com/paid?order=7&tx_ref=${body.tx_ref}&transaction_id=${verified.reference}&status=success`,
      });
      assert.match(done.text, /<script src="\/js\/frame-result\.js"><\/script>/);
    });

    test('a session not made by the popup goes straight to the merchant from /done', async () => {
      const viaApi = await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body: currentBody() });
      const path = new URL(viaApi.body.data.checkout_url).pathname;
      const client = new CheckoutClient(ctx.gw.url);
      await client.get(path);
      const cancelled = await client.post(`${path}/cancel`, {});
      assert.equal(cancelled.status, 303);
      assert.match(cancelled.location ?? '', /^https:\/\/shop\.example\.com\/cancelled\?/);
      const done = await client.get(`${path}/done`);
      assert.equal(done.status, 303);
      assert.equal(done.location, cancelled.location);
    });

    test('the HTML form creates the session and redirects to it, flat or bracketed', async () => {
      const flat = formFields(ctx.merchant.test_public_key);
      const answer = await postForm(ctx.gw.url, flat);
      assert.equal(answer.status, 302);
      const location = answer.headers.get('location')!;
      assert.match(location, new RegExp(`^${ctx.gw.url}/checkout/`));
      const verified = await verify(flat.tx_ref!);
      assert.equal(verified.amount, 2500);
      assert.deepEqual(verified.customization, { title: 'Order 12', description: 'Three bags of rice', logo: null });
      assert.deepEqual(verified.customer, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Phiri' });
      assert.deepEqual(verified.meta, { order: '12' });
      assert.equal((await fetch(location)).status, 200, 'the hosted page opens');

      const {
        email: _e,
        first_name: _f,
        last_name: _l,
        title: _t,
        description: _d,
        ...rest
      } = formFields(ctx.merchant.live_public_key);
      const bracketed: Record<string, string> = {
        ...rest,
        'customer[email]': 'bo@example.com',
        'customer[first_name]': 'Bo',
        'customer[last_name]': 'Banda',
        'customization[title]': 'Order 13',
        'customization[description]': 'Salt',
        'meta[a]': '1',
        'meta[b]': '2',
      };
      assert.equal((await postForm(ctx.gw.url, bracketed)).status, 302);
      const live = await verify(bracketed.tx_ref!, ctx.merchant.live_secret_key);
      assert.equal(live.mode, 'live');
      assert.deepEqual(live.customer, { email: 'bo@example.com', first_name: 'Bo', last_name: 'Banda' });
      assert.deepEqual(live.customization, { title: 'Order 13', description: 'Salt', logo: null });
      assert.deepEqual(live.meta, { order: '12', a: '1', b: '2' });
    });

    test("the HTML form's refusals are escaped HTML pages, never JSON", async () => {
      const cases: Array<[string, Record<string, string>, number, RegExp]> = [
        [
          'an invalid form',
          formFields(ctx.merchant.test_public_key, { amount: 'lots', callback_url: '' }),
          400,
          /The callback url field is required\. The amount must be an integer\./,
        ],
        [
          'a name the parser refuses',
          { ...formFields(ctx.merchant.test_public_key), 'meta[__proto__<b>x</b>]': '1' },
          400,
          /The meta\[__proto__<b>x<\/b>\] field is not allowed\./,
        ],
        [
          'a null character',
          formFields(ctx.merchant.test_public_key, { first_name: 'A\u0000' }),
          400,
          /The first name must not contain null characters\./,
        ],
        ['an unknown public key', formFields(`pub-test-${'C'.repeat(32)}`), 401, /Unauthenticated\./],
        ['no key', formFields(''), 401, /Unauthenticated\./],
        [
          'a secret key',
          formFields(ctx.merchant.test_secret_key),
          401,
          /a secret key must never be sent from a browser/,
        ],
      ];
      for (const [name, fields, status, message] of cases) {
        const answer = await postForm(ctx.gw.url, fields);
        const html = await answer.text();
        assert.equal(answer.status, status, `${name}: ${html}`);
        assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, name);
        assert.match(answer.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, name);
        assert.match(textOf(html), message, name);
        assert.ok(!html.includes('<b>x</b>'), `${name}: escaped`);
      }
    });
  });

  describe(`public keys are limited per key and per address on ${kind}`, () => {
    test("a public key has its own bucket, apart from the merchant's secret keys, and always pays its address", async () => {
      const gw = await startTestGateway(kind, {
        RATE_LIMIT_BURST: '3',
        RATE_LIMIT_PER_SECOND: '1',
        RATE_LIMIT_ADDRESS_BURST: '6',
        RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
      });
      try {
        const merchant = await gw.newMerchant();
        const popup = () => call(gw.url, '/popup/payment', { key: merchant.test_public_key, body: currentBody() });
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await popup()).status);
        assert.deepEqual(statuses, [201, 201, 201, 429], "the public key's bucket");
        assert.equal(
          (await call(gw.url, '/payment', { key: merchant.test_secret_key, body: currentBody() })).status,
          201,
          "the secret key's bucket is untouched",
        );
        // Four public requests and one more here took from the address; a known valid public key still pays it.
        const other = await gw.newMerchant('Other');
        const more = [];
        for (let i = 0; i < 3; i++)
          more.push((await call(gw.url, '/popup/payment', { key: other.test_public_key, body: currentBody() })).status);
        assert.deepEqual(more, [201, 429, 429], "the address's bucket");
      } finally {
        await gw.close();
      }
    });
  });
}

/** Follows an attempt as the page's script does until the session's last page. */
async function awaitEnd(client: CheckoutClient, attemptPath: string): Promise<PageResponse> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const status = await (await fetch(`${client.base}${attemptPath}/status`)).json();
    if (status.next_url) return client.follow(await client.get(status.next_url));
    await sleep(50);
  }
  throw new Error('the attempt never ended');
}
