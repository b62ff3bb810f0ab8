/** Runs `work` over `items`, at most `size` at a time. */
export async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map(work));
}
