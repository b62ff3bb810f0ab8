import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.ts';

/** Where each scenario leaves its figures, for docs/reliability.md (not committed). */
export const RESULTS_DIR = join(ROOT, 'test', 'faults', 'results');

/**
 * Prints what a fault scenario held (requests sent, faults injected, losses found) and keeps it
 * as `test/faults/results/<scenario>.json`, so the reliability document is written from a run.
 */
export function reportScenario(scenario: string, figures: Record<string, unknown>): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const record = { scenario, at: new Date().toISOString(), ...figures };
  writeFileSync(join(RESULTS_DIR, `${scenario}.json`), JSON.stringify(record, null, 2) + '\n');
  process.stdout.write(`[faults] ${scenario}: ${JSON.stringify(figures)}\n`);
}
