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
    { amount: ' 1000 ', last_name: null, email: '', customer: { first_name: 'N', email: 'n@example.com' }, logo: 'https://l.example/x.png', customization: { title: null } },
    null,
  );
  assert.deepEqual(body, { amount: 1000, customer: { first_name: 'N', email: 'n@example.com' }, first_name: 'N', email: 'n@example.com', logo: 'https://l.example/x.png', customization: { logo: 'https://l.example/x.png' } });
  assert.equal(normalizeCheckoutBody({ amount: 1000 }, '{"amount":1000.0}').amount, '1000.0');
  assert.equal(normalizeCheckoutBody({ amount: 'abc' }, null).amount, 'abc');
  assert.ok(!('amount' in normalizeCheckoutBody({}, null)));
});
