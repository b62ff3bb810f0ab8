import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

/**
 * scripts/not-passed-reporter.js, as `npm test` runs it: after the run, every test that did not
 * pass with its file and why, cancelled ones included (counted apart from failures, so a run could
 * end red with "fail 0" and no name in its last lines).
 */
test('after the run, the reporter names each test that failed or was cancelled, with its file and why', () => {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      // As `npm test` runs: the runner then exits once it has counted, before a reporter's stream is out.
      '--test-force-exit',
      '--test-reporter=./scripts/not-passed-reporter.js',
      '--test-reporter-destination=stdout',
      'test/helpers/reporter-fixture/unfinished.ts',
    ],
    // Without the runner's mark on this process, which makes a `node --test` under it skip its files.
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  assert.equal(run.status, 1, run.stderr);
  const file = 'test/helpers/reporter-fixture/unfinished.ts';
  assert.equal(
    run.stdout,
    [
      '',
      'Not passed (3):',
      `  ${file}: fails`,
      '    testCodeFailure: one is not two',
      `  ${file}: never ends`,
      '    cancelledByParent: Promise resolution is still pending but the event loop has already resolved',
      `  ${file}: never starts`,
      '    cancelledByParent: Promise resolution is still pending but the event loop has already resolved',
      '',
      '',
    ].join('\n'),
  );
});
