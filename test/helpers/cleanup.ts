import type { TestContext } from 'node:test';

/**
 * Registers cleanups to run after the test whether it passed or not, the last registered first:
 * processes die before their receiver closes and their database is dropped.
 */
export function useCleanup(t: TestContext): (step: () => Promise<unknown>) => void {
  const steps: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    const failures: unknown[] = [];
    for (const step of steps.reverse()) await step().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  });
  return (step) => steps.push(step);
}
