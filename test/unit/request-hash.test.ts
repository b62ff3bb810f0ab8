import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestHash } from '../../src/shared/request-hash.ts';

// Stored hashes decide whether a retry is the same request: the digest of a request must never
// change, whatever the implementation. This one was computed before the hash was rewritten for speed.
const REQUEST = {
  generation: 'current',
  txRef: 'order-1',
  amount: 1000,
  currency: 'MWK',
  first_name: 'Jane',
  last_name: undefined,
  email: 'j@example.com',
  callback_url: 'https://example.com/paid',
  return_url: undefined,
  customization: { title: 'Shop', description: undefined },
  meta: { order: [1, 'two', { z: null, a: true }], é: 'x', A: 1 },
};

test('a request hashes to the digest it always had', () => {
  assert.equal(requestHash(REQUEST), '4bwiNp9xYUbz5oxzpHppZCWaUgnQEGA7yxV5wUK5Tg4');
});

test('key order and undefined members do not change the hash; any value does', () => {
  const reordered = Object.fromEntries(Object.entries(REQUEST).reverse());
  assert.equal(requestHash(reordered), requestHash(REQUEST));
  assert.equal(requestHash({ ...REQUEST, extra: undefined }), requestHash(REQUEST));
  assert.notEqual(requestHash({ ...REQUEST, amount: 1001 }), requestHash(REQUEST));
  assert.notEqual(requestHash({ ...REQUEST, meta: { ...REQUEST.meta, order: [1, 'two'] } }), requestHash(REQUEST));
});
