export type Retry = { status: 'failed' } | { status: 'pending'; nextAttemptAt: number };

const JITTER = 0.1;

/**
 * What follows a failed try, given how many tries there have been: the next one after the
 * schedule's delay (±10 % so that a receiver coming back is not hit by every retry at once, and
 * never sooner than a `Retry-After` asked for), or `failed` once the schedule is used up.
 */
export function nextRetry(
  triesSoFar: number,
  scheduleMs: readonly number[],
  now: number,
  retryAfterMs: number | null = null,
  random = Math.random,
): Retry {
  const delay = scheduleMs[triesSoFar - 1];
  if (delay === undefined) return { status: 'failed' };
  const jittered = Math.round(delay * (1 - JITTER + 2 * JITTER * random()));
  return { status: 'pending', nextAttemptAt: now + Math.max(jittered, retryAfterMs ?? 0) };
}
