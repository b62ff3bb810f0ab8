import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, legacyBody, TIMESTAMP } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';

for (const kind of DATABASE_KINDS) {
  describe(`verifying checkout sessions on ${kind}`, () => {
    const ctx = useTestGateway(kind);

    test('current verify answers the full record, field by field', async () => {
      const body = currentBody({ amount: '2500' });
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      const res = await call(ctx.gw.url, `/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Payment details retrieved successfully.');
      const data = res.body.data;
      assert.deepEqual(Object.keys(data), [
        'event_type',
        'tx_ref',
        'mode',
        'type',
        'status',
        'number_of_attempts',
        'reference',
        'currency',
        'amount',
        'charges',
        'refunded_amount',
        'refund_status',
        'customization',
        'meta',
        'authorization',
        'customer',
        'logs',
        'created_at',
        'updated_at',
      ]);
      assert.equal(data.event_type, 'checkout.payment');
      assert.equal(data.tx_ref, body.tx_ref);
      assert.equal(data.mode, 'test');
      assert.equal(data.type, 'API Payment (Checkout)');
      assert.equal(data.status, 'pending');
      assert.equal(data.number_of_attempts, 0);
      assert.match(data.reference, /^\d{11}$/);
      assert.equal(data.currency, 'MWK');
      assert.equal(data.amount, 2500);
      assert.equal(data.charges, 0);
      assert.equal(data.refunded_amount, 0);
      assert.equal(data.refund_status, null);
      assert.deepEqual(data.customization, { title: 'Order 7', description: 'Two bags of maize', logo: null });
      assert.deepEqual(data.meta, { order_id: 7 });
      assert.equal(data.authorization, null);
      assert.deepEqual(data.customer, { email: 'jane@example.com', first_name: 'Jane', last_name: 'Banda' });
      assert.equal(data.logs.length, 1);
      assert.deepEqual(Object.keys(data.logs[0]), ['type', 'message', 'created_at']);
      assert.equal(data.logs[0].type, 'log');
      assert.equal(typeof data.logs[0].message, 'string');
      assert.match(data.logs[0].created_at, TIMESTAMP);
      assert.match(data.created_at, TIMESTAMP);
      assert.match(data.updated_at, TIMESTAMP);
    });

    test('legacy verify answers amounts as text and the legacy fields, field by field', async () => {
      const body = legacyBody({ amount: 10000 });
      assert.equal((await call(ctx.gw.url, '/api/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      const res = await call(ctx.gw.url, `/api/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['status', 'message', 'data']);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Payment details');
      const data = res.body.data;
      assert.deepEqual(Object.keys(data), [
        'first_name',
        'last_name',
        'email',
        'currency',
        'amount',
        'charge',
        'mode',
        'type',
        'status',
        'reference',
        'tx_ref',
        'customization',
        'meta',
        'created_at',
        'updated_at',
      ]);
      assert.equal(data.first_name, 'John');
      assert.equal(data.last_name, 'Phiri');
      assert.equal(data.email, 'john@example.com');
      assert.equal(data.currency, 'GBP');
      assert.equal(data.amount, '10,000.00');
      assert.equal(data.charge, '0.00');
      assert.equal(data.mode, 'test');
      assert.equal(data.type, 'API');
      assert.equal(data.status, 'pending');
      assert.match(data.reference, /^\d{11}$/);
      assert.equal(data.tx_ref, body.tx_ref);
      assert.deepEqual(data.customization, {
        title: 'Invoice 12',
        description: 'Consulting',
        logo: 'https://shop.example.com/logo.png',
      });
      assert.deepEqual(data.meta, { invoice: 12 });
      assert.match(data.created_at, TIMESTAMP);
      assert.match(data.updated_at, TIMESTAMP);
    });

    test('legacy verify formats the largest amount with separators', async () => {
      const body = legacyBody({ amount: 2147483647 });
      assert.equal((await call(ctx.gw.url, '/api/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      const res = await call(ctx.gw.url, `/api/verify-payment/${String(body.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(res.body.data.amount, '2,147,483,647.00');
    });

    test('both verify routes read sessions of either generation', async () => {
      const current = currentBody();
      assert.equal(
        (await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body: current })).status,
        201,
      );
      const legacy = await call(ctx.gw.url, `/api/verify-payment/${String(current.tx_ref)}`, {
        key: ctx.merchant.test_secret_key,
      });
      assert.equal(legacy.status, 200);
      assert.equal(legacy.body.data.amount, '1,000.00');
    });

    test('an unknown or impossible tx_ref is a 404 in the envelope', async () => {
      for (const path of [
        '/verify-payment/never-made',
        '/api/verify-payment/never-made',
        '/verify-payment/%3Cscript%3E',
        `/verify-payment/${'x'.repeat(101)}`,
      ]) {
        const res = await call(ctx.gw.url, path, { key: ctx.merchant.test_secret_key });
        assert.equal(res.status, 404, path);
        assert.deepEqual(res.body, { status: 'failed', message: 'Transaction not found.', data: null });
      }
    });
  });
}
