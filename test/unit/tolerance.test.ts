import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeCheckoutBody } from '../../src/checkout/checkout-tolerance.ts';
import { topLevelNumberLiteral } from '../../src/http/json-body.ts';

test('topLevelNumberLiteral finds how a top-level number was written, ignoring nested keys and strings', () => {
  assert.equal(topLevelNumberLiteral('{"amount":1e3}', 'amount'), '1e3');
  assert.equal(topLevelNumberLiteral('{"meta":{"amount":1.5},"amount":1000}', 'amount'), '1000');
  assert.equal(topLevelNumberLiteral('{"note":"\\"amount\\":1.5","amount": 7}', 'amount'), '7');
  assert.equal(topLevelNumberLiteral('{"amount":"1000"}', 'amount'), null);
  assert.equal(topLevelNumberLiteral('{"x":[{"amount":2.5}]}', 'amount'), null);
});

test('normalizeCheckoutBody applies the tolerance rules', () => {
  const body = normalizeCheckoutBody(
    {
      amount: ' 1000 ',
      last_name: null,
      email: '',
      customer: { first_name: 'N', email: 'n@example.com' },
      logo: 'https://l.example/x.png',
      customization: { title: null },
    },
    null,
  );
  assert.deepEqual(body, {
    amount: 1000,
    customer: { first_name: 'N', email: 'n@example.com' },
    first_name: 'N',
    email: 'n@example.com',
    logo: 'https://l.example/x.png',
    customization: { logo: 'https://l.example/x.png' },
  });
  assert.equal(normalizeCheckoutBody({ amount: 1000 }, '{"amount":1000.0}').amount, '1000.0');
  assert.equal(normalizeCheckoutBody({ amount: 'abc' }, null).amount, 'abc');
  assert.ok(!('amount' in normalizeCheckoutBody({}, null)));
});

test('normalizeCheckoutBody reads null members of customer and customization as absent, and keeps meta as sent', () => {
  const body = normalizeCheckoutBody(
    {
      customization: { title: null, description: null },
      customer: { first_name: null, email: 'n@example.com' },
      meta: { coupon: null },
    },
    null,
  );
  assert.deepEqual(body.customization, {}, 'an empty customization, not one of nulls');
  assert.equal(body.first_name, undefined);
  assert.equal(body.email, 'n@example.com');
  assert.deepEqual(body.meta, { coupon: null });
  assert.equal(normalizeCheckoutBody({ customization: null }, null).customization, undefined);
  assert.equal(
    normalizeCheckoutBody({ customization: 'x' }, null).customization,
    'x',
    'not an object: left for the schema to refuse',
  );
});
