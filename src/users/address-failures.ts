/**
 * Failed sign-ins per client address: past `limit` within `windowMs`, the address is refused
 * until its window ends, whichever accounts it tries. Only failures count (unlike the request
 * buckets of src/ratelimit/, which count every request), so an office behind one address signing
 * in all day is never refused. Kept in each process's memory: with several processes an address
 * gets the limit in each, which still bounds guessing far below the per-account lock's reach.
 */
export interface AddressFailures {
  /** Whether the address may try now. */
  allows(address: string, now: number): boolean;
  count(address: string, now: number): void;
}

/** Addresses remembered at most; beyond this, windows that have ended are forgotten first. */
const MAX_ADDRESSES = 10_000;

export function addressFailures(limit: number, windowMs: number): AddressFailures {
  const windows = new Map<string, { failures: number; endsAt: number }>();
  const current = (address: string, now: number) => {
    const window = windows.get(address);
    return window && window.endsAt > now ? window : null;
  };
  return {
    allows: (address, now) => (current(address, now)?.failures ?? 0) < limit,
    count(address, now) {
      const window = current(address, now);
      if (window) {
        window.failures += 1;
        return;
      }
      if (windows.size >= MAX_ADDRESSES) for (const [key, old] of windows) if (old.endsAt <= now) windows.delete(key);
      // Still full of live windows: the oldest goes (a Map keeps insertion order).
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
      windows.set(address, { failures: 1, endsAt: now + windowMs });
    },
  };
}
