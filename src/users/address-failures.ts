/**
 * Failed sign-ins per client address: past `limit` within `windowMs`, the address is refused
 * until its window ends, whichever accounts it tries. Only failures count (unlike the request
 * buckets of src/ratelimit/, which count every request), so an office behind one address signing
 * in all day is never refused. A sign-in takes its place before its password is hashed and counts
 * as a failure until it is known right, so a burst released together is refused past the limit
 * without a hash computed for it. Kept in each process's memory: with several processes an
 * address gets the limit in each, which still bounds guessing far below the per-account lock's reach.
 */
export interface AddressFailures {
  /** Takes one of the address's sign-ins; null when its failures and the sign-ins in flight fill its limit. */
  begin(address: string, now: number): AddressSignIn | null;
}

/** A sign-in under way from one address: it fails (and counts for the window), or ends without counting. */
export interface AddressSignIn {
  failed(now: number): void;
  /** Gives its place back unless it failed; called once it is answered, whatever the answer. */
  end(now: number): void;
}

/** Addresses remembered at most; beyond this, windows that have ended are forgotten first. */
const MAX_ADDRESSES = 10_000;

interface AddressWindow {
  failures: number;
  endsAt: number;
  inFlight: number;
}

export function addressFailures(limit: number, windowMs: number): AddressFailures {
  const windows = new Map<string, AddressWindow>();
  const failuresAt = (window: AddressWindow, now: number) => (window.endsAt > now ? window.failures : 0);
  const idle = (window: AddressWindow, now: number) => window.inFlight === 0 && window.endsAt <= now;

  function windowOf(address: string, now: number): AddressWindow {
    const known = windows.get(address);
    if (known) return known;
    if (windows.size >= MAX_ADDRESSES) for (const [key, old] of windows) if (idle(old, now)) windows.delete(key);
    // Still full of live windows: the oldest goes (a Map keeps insertion order).
    if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
    const window = { failures: 0, endsAt: now, inFlight: 0 };
    windows.set(address, window);
    return window;
  }

  return {
    begin(address, now) {
      const window = windowOf(address, now);
      if (failuresAt(window, now) + window.inFlight >= limit) return null;
      window.inFlight += 1;
      let open = true;
      const close = (at: number) => {
        if (!open) return null;
        open = false;
        const current = windowOf(address, at);
        current.inFlight = Math.max(0, current.inFlight - 1);
        return current;
      };
      return {
        failed(at) {
          const current = close(at);
          if (!current) return;
          if (current.endsAt > at) current.failures += 1;
          else Object.assign(current, { failures: 1, endsAt: at + windowMs });
        },
        end(at) {
          const current = close(at);
          if (current && idle(current, at)) windows.delete(address);
        },
      };
    },
  };
}
