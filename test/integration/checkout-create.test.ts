import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody, uniqueRef, without } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { LIVE_SESSIONS_ONLY } from '../helpers/live-routes.ts';

for (const kind of DATABASE_KINDS) {
  describe(`creating checkout sessions on ${kind}`, () => {
    const ctx = useTestGateway(kind, LIVE_SESSIONS_ONLY);
    const create = (body: unknown, path = '/payment') =>
      call(ctx.gw.url, path, { key: ctx.merchant.test_secret_key, body });

    test('current generation answers 201 with the exact session shape', async () => {
      const body = currentBody();
      const res = await create(body);
      assert.equal(res.status, 201);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Hosted payment session generated successfully.');
      assert.deepEqual(Object.keys(res.body.data), ['event', 'checkout_url', 'data']);
      assert.equal(res.body.data.event, 'checkout.session:created');
      assert.match(res.body.data.checkout_url, new RegExp(`^${ctx.gw.url}/checkout/[0-9a-z]{9}[0-9A-Za-z]{22}$`));
      assert.deepEqual(res.body.data.data, {
        tx_ref: body.tx_ref,
        currency: 'MWK',
        amount: 1000,
        mode: 'test',
        status: 'pending',
      });
    });

    test('legacy generation answers 201 with only the checkout_url', async () => {
      const res = await create(legacyBody(), '/api/payment');
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.deepEqual(Object.keys(res.body.data), ['checkout_url']);
      assert.match(res.body.data.checkout_url, new RegExp(`^${ctx.gw.url}/checkout/[0-9a-z]{9}[0-9A-Za-z]{22}$`));
    });

    test('a live key creates a live session', async () => {
      const res = await call(ctx.gw.url, '/payment', { key: ctx.merchant.live_secret_key, body: currentBody() });
      assert.equal(res.status, 201);
      assert.equal(res.body.data.data.mode, 'live');
    });

    const currentRequired = ['callback_url', 'return_url', 'tx_ref', 'first_name', 'currency', 'amount'];
    for (const field of currentRequired) {
      test(`current: missing ${field} is a 400 naming it`, async () => {
        const res = await create(without(currentBody(), field));
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, {
          status: 'failed',
          message: { [field]: [`The ${field.replace(/_/g, ' ')} field is required.`] },
          data: null,
        });
      });
    }

    const legacyRequired = ['first_name', 'last_name', 'email', 'currency', 'amount', 'customization'];
    for (const field of legacyRequired) {
      test(`legacy: missing ${field} is a 400 naming it`, async () => {
        const res = await create(without(legacyBody(), field), '/api/payment');
        assert.equal(res.status, 400);
        assert.deepEqual(res.body.message, { [field]: [`The ${field.replace(/_/g, ' ')} field is required.`] });
      });
    }

    test('legacy: customization needs a title and a description', async () => {
      const res = await create(legacyBody({ customization: { logo: 'https://x.example/l.png' } }), '/api/payment');
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.message, {
        'customization.title': ['The customization.title field is required.'],
        'customization.description': ['The customization.description field is required.'],
      });
    });

    test('current: optional fields may be left out', async () => {
      const body = currentBody();
      for (const field of ['last_name', 'email', 'customization', 'meta']) delete body[field];
      assert.equal((await create(body)).status, 201);
    });

    test('legacy: callback_url, return_url and tx_ref are optional; a tx_ref is generated', async () => {
      const res = await create(without(legacyBody(), 'tx_ref'), '/api/payment');
      assert.equal(res.status, 201);
    });

    test('an empty body lists every required field', async () => {
      const res = await create({});
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body.message).sort(), [...currentRequired].sort());
    });

    const wrongTypes: Array<[string, unknown, string]> = [
      ['callback_url', 42, 'The callback url must be a string.'],
      ['callback_url', 'not a url', 'The callback url must be a valid URL.'],
      ['callback_url', 'javascript:alert(1)', 'The callback url must be a valid URL.'],
      ['return_url', 'ftp://files.example.com/x', 'The return url must be a valid URL.'],
      ['tx_ref', 12345, 'The tx ref must be a string.'],
      ['tx_ref', 'has space', 'The tx ref format is invalid.'],
      ['tx_ref', 'x'.repeat(101), 'The tx ref must not be greater than 100 characters.'],
      ['first_name', true, 'The first name must be a string.'],
      ['first_name', 'x'.repeat(256), 'The first name must not be greater than 255 characters.'],
      ['last_name', ['Banda'], 'The last name must be a string.'],
      ['email', 'not-an-email', 'The email must be a valid email address.'],
      ['currency', 'GBP', 'The selected currency is invalid.'],
      ['currency', 'mwk', 'The selected currency is invalid.'],
      ['amount', 'abc', 'The amount must be an integer.'],
      ['amount', '10.5', 'The amount must be an integer.'],
      ['amount', 10.5, 'The amount must be an integer.'],
      ['amount', true, 'The amount must be an integer.'],
      ['amount', { value: 1 }, 'The amount must be an integer.'],
      ['amount', 0, 'The amount must be at least 1.'],
      ['amount', -1, 'The amount must be at least 1.'],
      ['amount', '-1', 'The amount must be at least 1.'],
      ['amount', 2147483648, 'The amount must not be greater than 2147483647.'],
      ['amount', '99999999999999999999', 'The amount must not be greater than 2147483647.'],
      ['customization', 'Order 7', 'The customization must be an object.'],
      ['meta', 'order=7', 'The meta must be an object.'],
      ['meta', [1, 2], 'The meta must be an object.'],
      ['meta', { blob: 'x'.repeat(9000) }, 'The meta must not be greater than 8 kilobytes.'],
    ];
    for (const [field, value, message] of wrongTypes) {
      test(`current: ${field} = ${JSON.stringify(value).slice(0, 30)} is a 400`, async () => {
        const res = await create(currentBody({ [field]: value }));
        assert.equal(res.status, 400);
        assert.equal(res.body.status, 'failed');
        assert.equal(res.body.data, null);
        assert.ok(res.body.message[field]?.includes(message), `${JSON.stringify(res.body.message)} lacks "${message}"`);
      });
    }

    test('customization.title of the wrong type names the nested field', async () => {
      const res = await create(currentBody({ customization: { title: 5 } }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.message, { 'customization.title': ['The customization.title must be a string.'] });
    });

    test('amount written as 1e3 or 1000.0 in the JSON text is not an integer', async () => {
      for (const literal of ['1e3', '1000.0', '1E3']) {
        const body = JSON.stringify(currentBody({ amount: 0 })).replace('"amount":0', `"amount":${literal}`);
        const res = await call(ctx.gw.url, '/payment', {
          key: ctx.merchant.test_secret_key,
          rawBody: body,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 400, literal);
        assert.deepEqual(res.body.message, { amount: ['The amount must be an integer.'] });
      }
    });

    test('text holding a NUL (which PostgreSQL cannot store) is a 400 naming the field, not a 500', async () => {
      for (const [overrides, field] of [
        [{ first_name: 'Ja\u0000ne' }, 'first_name'],
        [{ customization: { title: 'Order\u0000 7' } }, 'customization.title'],
        [{ meta: { note: ['ok', '\u0000'] } }, 'meta.note.1'],
      ] as const) {
        const res = await create(currentBody(overrides));
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.message, {
          [field]: [`The ${field.replace(/_/g, ' ')} must not contain null characters.`],
        });
      }
      const escaped = await create(currentBody({ first_name: 'a\\u0000b' }));
      assert.equal(escaped.status, 201, 'the six characters \\u0000 are ordinary text');
    });

    test('meta nested thousands of levels deep (too deep to write back as JSON) is a 400 naming it, not a 500', async () => {
      const depth = 30_000;
      const body = JSON.stringify(currentBody({ meta: 0 })).replace(
        '"meta":0',
        `"meta":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      );
      const res = await call(ctx.gw.url, '/payment', {
        key: ctx.merchant.test_secret_key,
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.message, { meta: ['The meta must not be nested more than 32 levels deep.'] });
    });

    test('a nested amount written as 1.5 does not confuse the top-level check', async () => {
      const res = await create(currentBody({ meta: { amount: 1.5 } }));
      assert.equal(res.status, 201);
    });

    test('amount is accepted as a number and as a numeric string, at both int32 edges', async () => {
      for (const [amount, expected] of [
        [1, 1],
        ['1000', 1000],
        [2147483647, 2147483647],
        ['2147483647', 2147483647],
      ] as const) {
        const res = await create(currentBody({ amount }));
        assert.equal(res.status, 201, String(amount));
        assert.equal(res.body.data.data.amount, expected);
      }
    });

    test('optional fields given as JSON null are treated as absent', async () => {
      const body = currentBody({ last_name: null, email: null, customization: null, meta: null });
      const res = await create(body);
      assert.equal(res.status, 201);
      const verify = await call(ctx.gw.url, `/verify-payment/${body.tx_ref as string}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.deepEqual(verify.body.data.customer, { email: null, first_name: 'Jane', last_name: null });
      assert.equal(verify.body.data.meta, null);
      assert.deepEqual(verify.body.data.customization, { title: null, description: null, logo: null });
    });

    test('a required field given as null or "" is missing', async () => {
      const res = await create(currentBody({ first_name: null, tx_ref: '' }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.message, {
        tx_ref: ['The tx ref field is required.'],
        first_name: ['The first name field is required.'],
      });
    });

    test('the customer may come nested; a top-level logo is customization.logo; unknown fields are ignored', async () => {
      const body = currentBody({
        customer: { first_name: 'Nested', last_name: 'Customer', email: 'nested@example.com' },
        logo: 'https://cdn.example.com/l.png',
        uuid: 'ignored',
        extra: { a: 1 },
      });
      for (const field of ['first_name', 'last_name', 'email']) delete body[field];
      const res = await create(body);
      assert.equal(res.status, 201);
      const verify = await call(ctx.gw.url, `/verify-payment/${body.tx_ref as string}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.deepEqual(verify.body.data.customer, {
        email: 'nested@example.com',
        first_name: 'Nested',
        last_name: 'Customer',
      });
      assert.deepEqual(verify.body.data.customization, {
        title: 'Order 7',
        description: 'Two bags of maize',
        logo: 'https://cdn.example.com/l.png',
      });
    });

    test('legacy accepts the nested customer for its required names', async () => {
      const body = legacyBody({ customer: { first_name: 'N', last_name: 'C', email: 'n@example.com' } });
      for (const field of ['first_name', 'last_name', 'email']) delete body[field];
      assert.equal((await create(body, '/api/payment')).status, 201);
    });

    test('repeating a create with the same tx_ref and parameters answers as the first did', async () => {
      const body = currentBody();
      const first = await create(body);
      const again = await create(body);
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body);
      const legacy = legacyBody();
      const legacyFirst = await create(legacy, '/api/payment');
      const legacyAgain = await create(legacy, '/api/payment');
      assert.equal(legacyAgain.status, 201);
      assert.deepEqual(legacyAgain.body, legacyFirst.body);
    });

    test('the same tx_ref with different parameters is a duplicate', async () => {
      const body = currentBody();
      assert.equal((await create(body)).status, 201);
      const res = await create({ ...body, amount: 2000 });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        status: 'failed',
        message: { tx_ref: ['The tx ref has already been taken.'] },
        data: null,
      });
    });

    test('the same tx_ref through the other generation is a duplicate', async () => {
      const body = legacyBody({
        currency: 'MWK',
        callback_url: 'https://shop.example.com/paid',
        return_url: 'https://shop.example.com/back',
      });
      assert.equal((await create(body, '/api/payment')).status, 201);
      assert.equal((await create(body)).status, 400);
    });

    test('a tx_ref whose session has ended cannot be reused, even with the same parameters', async () => {
      const body = currentBody();
      assert.equal((await create(body)).status, 201);
      await ctx.gw.gateway.database.db
        .updateTable('checkout_sessions')
        .set({ status: 'failed' })
        .where('tx_ref', '=', body.tx_ref as string)
        .execute();
      const res = await create(body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.message, { tx_ref: ['The tx ref has already been taken.'] });
    });

    test('tx_ref is unique per merchant and mode, not across them', async () => {
      const body = currentBody();
      const other = await ctx.gw.newMerchant('Other Shop');
      assert.equal((await create(body)).status, 201);
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.live_secret_key, body })).status, 201);
      assert.equal((await call(ctx.gw.url, '/payment', { key: other.test_secret_key, body })).status, 201);
    });

    test('concurrent creates with one tx_ref give one record and the same answer', async () => {
      const body = currentBody();
      const responses = await Promise.all(Array.from({ length: 12 }, () => create(body)));
      assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]));
      assert.equal(new Set(responses.map((r) => r.body.data.checkout_url)).size, 1);
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('checkout_sessions')
        .select('id')
        .where('tx_ref', '=', body.tx_ref as string)
        .execute();
      assert.equal(rows.length, 1);
    });

    test('concurrent creates with one tx_ref but different amounts give one record; the rest are duplicates', async () => {
      const txRef = uniqueRef('race');
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create(currentBody({ tx_ref: txRef, amount: 100 + i }))),
      );
      assert.equal(responses.filter((r) => r.status === 201).length, 1);
      assert.equal(responses.filter((r) => r.status === 400).length, 7);
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('checkout_sessions')
        .select('id')
        .where('tx_ref', '=', txRef)
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a rejected create writes nothing', async () => {
      const body = currentBody({ currency: 'EUR' });
      assert.equal((await create(body)).status, 400);
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('checkout_sessions')
        .select('id')
        .where('tx_ref', '=', body.tx_ref as string)
        .execute();
      assert.equal(rows.length, 0);
    });
  });
}
