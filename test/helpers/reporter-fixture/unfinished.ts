// Run by test/unit/not-passed-reporter.test.ts through `node --test`, never by the suite's own
// globs: one test passes, one fails, one never ends (its file's event loop empties) and one after
// it is never started.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

describe('a file the reporter reads', () => {
  test('passes', () => {});
  test('fails', () => assert.equal(1, 2, 'one is not two'));
  test('never ends', () => new Promise(() => {}));
  test('never starts', () => {});
});
