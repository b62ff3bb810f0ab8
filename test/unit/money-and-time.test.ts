import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { feeMinor, formatMoneyText, toMinor } from '../../src/shared/money.ts';
import { formatTimestamp, parseDuration } from '../../src/shared/time.ts';

test('fees are a percentage in basis points, rounded half-up to the minor unit', () => {
  assert.equal(feeMinor(toMinor(1000), 300), 3000);
  assert.equal(feeMinor(toMinor(333), 250), 833, '8.325 rounds up to 8.33');
  assert.equal(feeMinor(toMinor(1), 50), 1, '0.005 rounds up to 0.01');
  assert.equal(feeMinor(toMinor(1), 49), 0);
  assert.equal(feeMinor(toMinor(2_147_483_647), 10_000), toMinor(2_147_483_647));
});

test('legacy money text has thousands separators and two decimals', () => {
  assert.equal(formatMoneyText(toMinor(10000)), '10,000.00');
  assert.equal(formatMoneyText(833), '8.33');
  assert.equal(formatMoneyText(0), '0.00');
  assert.equal(formatMoneyText(toMinor(2_147_483_647)), '2,147,483,647.00');
});

test('timestamps have six fractional digits and a Z', () => {
  assert.equal(formatTimestamp(Date.UTC(2025, 0, 23, 17, 3, 28, 123)), '2025-01-23T17:03:28.123000Z');
  assert.equal(formatTimestamp(Date.UTC(2024, 1, 29, 23, 59, 59, 5)), '2024-02-29T23:59:59.005000Z');
  assert.equal(formatTimestamp(Date.UTC(2100, 2, 1)), '2100-03-01T00:00:00.000000Z');
  assert.equal(formatTimestamp(0), '1970-01-01T00:00:00.000000Z');
});

test('timestamps agree with Date#toISOString for any instant from 1970 to 9999', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (epochMs) => {
      assert.equal(formatTimestamp(epochMs), new Date(epochMs).toISOString().replace('Z', '000Z'));
    }),
    { numRuns: 20_000 },
  );
});

test('durations', () => {
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('15m'), 900_000);
  assert.equal(parseDuration('24h'), 86_400_000);
  assert.equal(parseDuration('7d'), 604_800_000);
  for (const bad of ['', 'soon', '5', '-1h', '1.5h', '1w']) assert.equal(parseDuration(bad), null, bad);
});
