import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapFlagsToApply } from '../../src/cli/heap-tuning.ts';

test('the server applies its heap settings by default', () => {
  assert.deepEqual(heapFlagsToApply(''), ['--heap-growing-percent=25', '--max-semi-space-size=8']);
});

test("an operator's own heap setting wins over the server's", () => {
  assert.deepEqual(heapFlagsToApply('--max-semi-space-size=32 --enable-source-maps'), ['--heap-growing-percent=25']);
  assert.deepEqual(heapFlagsToApply('--heap-growing-percent=100'), ['--max-semi-space-size=8']);
});
