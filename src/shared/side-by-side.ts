/**
 * Runs `work` for every item, at most `limit` at a time, and resolves once all have settled; stops
 * starting new ones once `isStopping` says so. The first failure is thrown after the rest settle,
 * so nothing is left running behind the caller.
 */
export async function sideBySide<T>(items: readonly T[], limit: number, isStopping: () => boolean, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length && !isStopping()) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}
