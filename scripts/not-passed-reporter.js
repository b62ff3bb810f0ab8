// A node:test reporter that prints, once the run has ended, every test that did not pass: failed,
// cancelled (a test or suite past its time, or left pending when its file's event loop emptied)
// or timed out, each with its file and why. The TAP above it says the same, but thousands of
// lines earlier: CI's log is often read from its end only, which then showed counts and no name.
//   node --test --test-reporter=tap --test-reporter-destination=stdout \
//     --test-reporter=./scripts/not-passed-reporter.js --test-reporter-destination=stdout …
import { writeSync } from 'node:fs';
import path from 'node:path';

/** The first line of what went wrong, however the runner wrapped it. */
function why(details) {
  const error = details?.error;
  if (!error) return 'no reason given';
  const cause = error.cause instanceof Error ? error.cause : error;
  const kind = error.failureType ? `${error.failureType}: ` : '';
  return `${kind}${String(cause.message ?? cause).split('\n')[0]}`;
}

/**
 * Writes at once rather than through the reporter's stream: with `--test-force-exit` the runner
 * exits as soon as it has counted, before a stream's last chunks are out (its own TAP loses its
 * closing line). Standard output may be a non-blocking pipe a reader has not emptied yet.
 */
function writeNow(text) {
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(process.stdout.fd, rest));
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
}

// The runner takes a reporter as a generator; this one writes its list itself (writeNow) and yields nothing.
// eslint-disable-next-line require-yield
export default async function* notPassed(source) {
  const failures = [];
  let written = false;
  const writeList = () => {
    if (written || failures.length === 0) return;
    written = true;
    writeNow(`\nNot passed (${failures.length}):\n${failures.join('')}\n`);
  };
  for await (const event of source) {
    // The run's counts come once every test has ended: the list is complete.
    if (event.type === 'test:diagnostic' && event.data.nesting === 0 && /^tests \d+$/.test(event.data.message))
      writeList();
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite fails, or is cancelled, with its tests: they are listed on their own. One that
    // failed by itself (a hook, its own time) is listed.
    if (details?.type === 'suite' && ['subtestsFailed', 'cancelledByParent'].includes(details.error?.failureType))
      continue;
    const where = file ? path.relative(process.cwd(), file) : 'unknown file';
    failures.push(`  ${where}: ${name}\n    ${why(details)}\n`);
  }
  writeList();
}
