import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NewWorkShedding } from '../../src/http/new-work-shedding.ts';
import { behindForNewWork } from '../../src/http/overload.ts';

/** How many of `count` new requests are admitted now. */
function admitted(shedding: NewWorkShedding, count: number): number {
  let admittedCount = 0;
  for (let i = 0; i < count; i += 1) if (shedding.admit()) admittedCount += 1;
  return admittedCount;
}

const near = (actual: number, expected: number) => Math.abs(actual - expected) < 1e-9;

test('while the loop keeps up every new request is admitted', () => {
  const shedding = new NewWorkShedding();
  for (let i = 0; i < 10; i += 1) shedding.observe(false);
  assert.equal(shedding.refusedShare(), 0);
  assert.equal(admitted(shedding, 100), 100);
});

test('behind, a growing share is refused, spread evenly, up to all; keeping up again brings it back, half as fast', () => {
  const shedding = new NewWorkShedding();
  shedding.observe(true);
  assert.equal(shedding.refusedShare(), 0, 'one sample behind is not a trend');
  shedding.observe(true);
  shedding.observe(true);
  assert.ok(near(shedding.refusedShare(), 0.2));
  assert.equal(admitted(shedding, 100), 80, 'four in five admitted');
  const pattern = Array.from({ length: 10 }, () => shedding.admit());
  assert.equal(pattern.filter((ok) => !ok).length, 2);
  assert.ok(!pattern.some((ok, i) => !ok && pattern[i + 1] === false), 'never two refusals in a row at a fifth');

  for (let i = 0; i < 20; i += 1) shedding.observe(true);
  assert.equal(shedding.refusedShare(), 1);
  assert.equal(admitted(shedding, 50), 0, 'a process far behind admits no new work');
  for (let i = 0; i < 4; i += 1) shedding.observe(i % 2 === 0);
  assert.ok(near(shedding.refusedShare(), 0.9), 'behind every other sample: it only falls');

  for (let i = 0; i < 10; i += 1) shedding.observe(false);
  assert.ok(near(shedding.refusedShare(), 0.4), 'a twentieth a sample');
  for (let i = 0; i < 10; i += 1) shedding.observe(false);
  assert.equal(shedding.refusedShare(), 0);
  assert.equal(admitted(shedding, 20), 20);
});

test('behind for new work: turns over half the lateness limit, or the loop busy and the core full together', () => {
  const keepingUp = { longestLatenessMs: 20, utilization: 0.5, cpuCores: 0.5 };
  assert.equal(behindForNewWork(keepingUp, 200), false);
  assert.equal(behindForNewWork({ ...keepingUp, longestLatenessMs: 101 }, 200), true);
  assert.equal(
    behindForNewWork({ ...keepingUp, longestLatenessMs: Infinity }, 200),
    true,
    'no reading: held throughout',
  );
  assert.equal(behindForNewWork({ ...keepingUp, utilization: 0.95, cpuCores: 0.95 }, 200), true);
  assert.equal(
    behindForNewWork({ ...keepingUp, utilization: 0.95, cpuCores: 0.4 }, 200),
    false,
    'a loop busy waiting for fsync is not a full core',
  );
  assert.equal(
    behindForNewWork({ ...keepingUp, utilization: 0.3, cpuCores: 2.5 }, 200),
    false,
    'the thread pool hashing passwords is not the loop',
  );
});
