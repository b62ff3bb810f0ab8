import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backupAgeSeconds, backupFileName, backupTooOld } from '../../src/operations/backup-schedule.ts';

const HOUR = 3_600_000;
const status = (lastGoodAt: number | null) => ({ intervalMs: HOUR, since: 0, lastGoodAt });

test('a backup is too old past two intervals, counted from the start while there is none', () => {
  assert.equal(backupTooOld(status(10 * HOUR), 12 * HOUR), false);
  assert.equal(backupTooOld(status(10 * HOUR), 12 * HOUR + 1), true);
  assert.equal(backupTooOld(status(null), 2 * HOUR), false);
  assert.equal(backupTooOld(status(null), 2 * HOUR + 1), true);
});

test('the age metric is infinite while there is no backup, so an alert on it fires', () => {
  assert.equal(backupAgeSeconds(status(null), HOUR), Infinity);
  assert.equal(backupAgeSeconds(status(HOUR), 2 * HOUR), 3600);
});

test('backup names sort in the order they were taken', () => {
  const times = [Date.UTC(2026, 10, 29, 9, 59, 59, 999), Date.UTC(2026, 10, 29, 10), Date.UTC(2027, 0, 1)];
  const names = times.map(backupFileName);
  assert.deepEqual([...names].sort(), names);
  assert.equal(names[1], 'lipira-backup-2026-11-29T10-00-00.000Z.db');
});
