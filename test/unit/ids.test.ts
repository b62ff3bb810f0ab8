import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ids } from '../../src/shared/ids.ts';

test('checkout ids made later sort after earlier ones, whatever their random part', () => {
  // Around base36 digit boundaries, a day apart and a millisecond apart.
  const instants = [
    0,
    35,
    36,
    1_295,
    1_296,
    Date.UTC(2026, 10, 23),
    Date.UTC(2026, 10, 23) + 1,
    Date.UTC(2026, 10, 24),
    Date.UTC(2081, 0, 1),
    Date.UTC(5000, 0, 1),
  ];
  for (let i = 1; i < instants.length; i++) {
    for (let draw = 0; draw < 50; draw++) {
      const earlier = ids.checkoutToken(instants[i - 1]!);
      const later = ids.checkoutToken(instants[i]!);
      assert.ok(earlier < later, `${earlier} (at ${instants[i - 1]}) sorts before ${later} (at ${instants[i]})`);
    }
  }
});

test('a checkout id is its time in 9 base36 digits and 22 random base62 characters', () => {
  const now = Date.UTC(2026, 10, 23, 19, 0, 0, 123);
  const tokens = new Set(Array.from({ length: 1000 }, () => ids.checkoutToken(now)));
  assert.equal(tokens.size, 1000, 'no two alike');
  for (const token of tokens) {
    assert.match(token, /^[0-9a-z]{9}[0-9A-Za-z]{22}$/);
    assert.equal(parseInt(token.slice(0, 9), 36), now);
  }
});
