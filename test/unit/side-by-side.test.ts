import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sideBySide } from '../../src/shared/side-by-side.ts';

test('every item is worked on, never more than the limit at once', async () => {
  let running = 0;
  let most = 0;
  const done: number[] = [];
  await sideBySide([1, 2, 3, 4, 5, 6, 7], 3, () => false, async (item) => {
    running += 1;
    most = Math.max(most, running);
    await sleep(5 + (item % 3));
    done.push(item);
    running -= 1;
  });
  assert.deepEqual([...done].sort(), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(most, 3);
});

test('a failure is thrown once the others have settled; no new item starts once stopping', async () => {
  const done: number[] = [];
  await assert.rejects(
    sideBySide([1, 2, 3, 4], 2, () => false, async (item) => {
      await sleep(item * 3);
      if (item === 1) throw new Error('one failed');
      done.push(item);
    }),
    /one failed/,
  );
  assert.deepEqual(done, [2, 3, 4]);
  let stopping = false;
  const started: number[] = [];
  await sideBySide([1, 2, 3, 4, 5], 2, () => stopping, async (item) => {
    started.push(item);
    stopping = item === 2;
    await sleep(1);
  });
  assert.deepEqual(started, [1, 2]);
});
