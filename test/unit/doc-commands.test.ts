import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The documents a reader pastes commands from: the README and docs/, but not the dated records. */
function readersDocuments(): string[] {
  const records = new Set(['docs/decisions.md', 'docs/performance-history.md']);
  const docs = (fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.posix.join('docs', name.split(path.sep).join('/')))
    .filter((name) => !records.has(name));
  return ['README.md', ...docs.sort()];
}

/**
 * Every shell block says what becomes of it on the line before (an HTML comment, which readers do
 * not see): `<!-- run by test/…ts -->`, naming a test that reads this document, or `<!-- not run:
 * why -->`. The README's walk-through is the one run as a whole (its test finds it by heading).
 */
const RUN_BY = /^<!-- run by (test\/\S+\.ts) -->$/;
const NOT_RUN = /^<!-- not run: \S.* -->$/;

test('every shell block of the docs is run by a test that reads it, or says why it is not', () => {
  const unexplained: string[] = [];
  for (const document of readersDocuments()) {
    const lines = fs.readFileSync(path.join(ROOT, document), 'utf8').split('\n');
    let fenced = false;
    lines.forEach((line, index) => {
      const fence = /^\s*```(\w*)/.exec(line);
      if (!fence) return;
      fenced = !fenced;
      if (!fenced || fence[1] !== 'sh') return;
      const before = (
        lines
          .slice(0, index)
          .reverse()
          .find((previous) => previous.trim() !== '') ?? ''
      ).trim();
      const runner = RUN_BY.exec(before)?.[1];
      if (runner) {
        const file = path.join(ROOT, runner);
        if (!fs.existsSync(file) || !fs.readFileSync(file, 'utf8').includes(`'${document}'`))
          unexplained.push(`${document}:${index + 1}: ${runner} does not read ${document}`);
      } else if (!NOT_RUN.test(before))
        unexplained.push(`${document}:${index + 1}: neither run by a test nor said why not`);
    });
  }
  assert.deepEqual(unexplained, []);
});
