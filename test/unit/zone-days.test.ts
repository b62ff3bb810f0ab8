import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastDays, startOfDay, startOfNextDay, zoneDateOf, zoneTimeOn } from '../../src/shared/zone-days.ts';

test("days start at the zone's local midnight, oldest first, today last", () => {
  const noon = Date.UTC(2026, 10, 25, 10); // 12:00 in Blantyre (UTC+2)
  assert.deepEqual(lastDays(noon, 2, 'Africa/Blantyre'), [
    { date: '2026-11-24', start: Date.UTC(2026, 10, 23, 22) },
    { date: '2026-11-25', start: Date.UTC(2026, 10, 24, 22) },
  ]);
});

test('a day that starts on the previous UTC date, fourteen hours ahead', () => {
  assert.deepEqual(lastDays(Date.UTC(2026, 10, 25, 17), 1, 'Pacific/Kiritimati'), [
    { date: '2026-11-26', start: Date.UTC(2026, 10, 25, 10) },
  ]);
});

test('across a daylight-saving change a day is 23 hours long, and each still starts at local midnight', () => {
  const days = lastDays(Date.UTC(2026, 2, 30, 12), 3, 'Europe/London');
  assert.deepEqual(
    days.map((day) => day.date),
    ['2026-03-28', '2026-03-29', '2026-03-30'],
  );
  assert.equal(days[1]!.start, Date.UTC(2026, 2, 29, 0), 'GMT before the change');
  assert.equal(days[2]!.start, Date.UTC(2026, 2, 29, 23), 'BST after it');
});

test('a date from a form starts at local midnight in the zone, and an inclusive "to" day ends at the next local midnight', () => {
  assert.equal(startOfDay('2026-11-25', 'Africa/Blantyre'), Date.parse('2026-11-24T22:00:00Z'));
  assert.equal(startOfNextDay('2026-11-25', 'Africa/Blantyre'), Date.parse('2026-11-25T22:00:00Z'));
  // London's clocks go forward on 29 March 2026: that day is 23 hours long.
  assert.equal(startOfDay('2026-03-29', 'Europe/London'), Date.parse('2026-03-29T00:00:00Z'));
  assert.equal(startOfNextDay('2026-03-29', 'Europe/London'), Date.parse('2026-03-29T23:00:00Z'));
  assert.equal(startOfNextDay('2026-12-31', 'UTC'), Date.parse('2027-01-01T00:00:00Z'));
  for (const junk of ['2026-02-30', '2026-13-01', '25/11/2026', '2026-11-25T00:00', '']) {
    assert.equal(startOfDay(junk, 'Africa/Blantyre'), null, junk);
    assert.equal(startOfNextDay(junk, 'Africa/Blantyre'), null, junk);
  }
});

test("a local date and weekday, and a time of day on a later local date, in the zone's own wall clock", () => {
  // 23:30 UTC on Sunday 2 March 2031 is already Monday in Blantyre (UTC+2).
  assert.deepEqual(zoneDateOf(Date.UTC(2031, 2, 2, 23, 30), 'Africa/Blantyre'), { date: '2031-03-03', weekday: 1 });
  assert.deepEqual(zoneDateOf(Date.UTC(2031, 2, 9, 12), 'UTC'), { date: '2031-03-09', weekday: 7 });
  assert.equal(zoneTimeOn('2031-03-03', 0, 8 * 60, 'Africa/Blantyre'), Date.UTC(2031, 2, 3, 6));
  assert.equal(zoneTimeOn('2031-02-28', 1, 8 * 60, 'Africa/Blantyre'), Date.UTC(2031, 2, 1, 6), 'into the next month');
  // London's clocks go forward on 29 March 2026: 08:00 is 07:00 UTC that day, 08:00 UTC the day before.
  assert.equal(zoneTimeOn('2026-03-28', 0, 8 * 60, 'Europe/London'), Date.UTC(2026, 2, 28, 8));
  assert.equal(zoneTimeOn('2026-03-28', 1, 8 * 60, 'Europe/London'), Date.UTC(2026, 2, 29, 7));
});
