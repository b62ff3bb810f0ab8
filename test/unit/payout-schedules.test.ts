import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payableMinor } from '../../src/payouts/payout-schedules.ts';
import { cadenceText, nextRunAfter, runDay } from '../../src/payouts/schedule-times.ts';
import { feeMinor } from '../../src/shared/money.ts';

const ZONE = 'Africa/Blantyre';
/** 08:00 in Blantyre (UTC+2) on a day of March 2031: 3 March is a Monday. */
const eight = (day: number) => Date.UTC(2031, 2, day, 6);

test('a daily schedule runs at 08:00 local time: today while it is earlier, else tomorrow', () => {
  const daily = { frequency: 'daily', weekday: null } as const;
  assert.equal(nextRunAfter(daily, Date.UTC(2031, 2, 3, 5, 59), ZONE), eight(3));
  assert.equal(nextRunAfter(daily, eight(3), ZONE), eight(4), 'a run is strictly after: the one due now is not next');
  assert.equal(nextRunAfter(daily, Date.UTC(2031, 2, 3, 22, 30), ZONE), eight(4), '00:30 on the 4th: that morning');
});

test('a weekly schedule runs on its weekday at 08:00: this week while it is to come, else a week on', () => {
  const wednesday = { frequency: 'weekly', weekday: 3 } as const;
  assert.equal(nextRunAfter(wednesday, eight(3), ZONE), eight(5));
  assert.equal(nextRunAfter(wednesday, eight(5) - 1, ZONE), eight(5));
  assert.equal(nextRunAfter(wednesday, eight(5), ZONE), eight(12));
  const monday = { frequency: 'weekly', weekday: 1 } as const;
  assert.equal(nextRunAfter(monday, eight(3) + 1, ZONE), eight(10));
  assert.equal(nextRunAfter({ frequency: 'weekly', weekday: 7 }, eight(3), ZONE), eight(9));
  assert.equal(cadenceText(wednesday), 'Every Wednesday');
  assert.equal(cadenceText({ frequency: 'daily', weekday: null }), 'Every day');
});

test("a run's day, for its charge_id, is the local date it was due on", () => {
  assert.equal(runDay(eight(5), ZONE), '20310305');
  assert.equal(runDay(Date.UTC(2031, 2, 4, 23), ZONE), '20310305', '01:00 local on the 5th');
});

test('a run pays the most whole kwacha that the main balance covers with the fee', () => {
  // 1 % fee: 4,801 kwacha and its 48.01 fee make 4,849.01 of 4,850.00; 4,802 would need 4,850.02.
  assert.equal(payableMinor(485_000, 100), 480_100);
  assert.equal(payableMinor(0, 100), 0);
  assert.equal(payableMinor(100, 100), 0, 'one kwacha does not cover one kwacha and its fee');
  assert.equal(payableMinor(101, 100), 100);
  assert.equal(payableMinor(-500, 100), 0, 'nothing from a balance below zero');
  assert.equal(payableMinor(250_075, 0), 250_000, 'no fee: the tambala stay');
  for (const [balance, bps] of [
    [999_999_99, 100],
    [12_345_67, 250],
    [1_00, 0],
    [7_77, 333],
  ] as const) {
    const paid = payableMinor(balance, bps);
    assert.ok(paid % 100 === 0 && paid + feeMinor(paid, bps) <= balance, `${paid} fits ${balance}`);
    assert.ok(paid + 100 + feeMinor(paid + 100, bps) > balance, `one kwacha more would not fit ${balance}`);
  }
});
