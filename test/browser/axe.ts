import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { STEP_TIMEOUT_MS } from '../helpers/browser.ts';

/**
 * axe-core's accessibility checks on the page as the browser shows it now. Its script is handed
 * to the page through the DevTools protocol (page.evaluate), which the page's Content-Security-
 * Policy does not govern, so the page is checked exactly as it is served. Fails on any violation
 * of serious or critical impact, and on any of axe's best practices (landmarks such as `region`,
 * `empty-table-header`, heading order…) whatever its impact, naming each rule and where it failed.
 * `tolerated` names rules a page may break, each with the reason: markup that is not ours.
 */
export async function assertAccessible(
  page: Page,
  what: string,
  tolerated: Readonly<Record<string, string>> = {},
): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource());
  const checked = page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }
    ).axe;
    interface Violation {
      id: string;
      impact: string | null;
      tags: string[];
      help: string;
      nodes: Array<{ target: unknown[] }>;
    }
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      tags: violation.tags,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  // axe waits on the page's timers, which never fire where scripts are off: fail rather than hang.
  // Over a page as long as the API reference, on a loaded CI machine, it may take more than one step.
  const violations = await Promise.race([
    checked,
    sleep(4 * STEP_TIMEOUT_MS).then(() =>
      Promise.reject(new Error(`axe did not finish on ${what} (is JavaScript off in this tab?)`)),
    ),
  ]);
  const failing = violations.filter(
    (violation) =>
      (violation.impact === 'serious' || violation.impact === 'critical' || violation.tags.includes('best-practice')) &&
      !Object.hasOwn(tolerated, violation.id),
  );
  assert.deepEqual(
    failing.map(
      (violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.targets.join(', ')})`,
    ),
    [],
    `no serious or critical accessibility problem, and every best practice kept, on ${what}`,
  );
}

let source: string | undefined;

function axeSource(): string {
  source ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}
