/** `ratePerSecond` tokens flow into a bucket holding at most `capacity`; each request takes one. */
export interface BucketPolicy {
  ratePerSecond: number;
  capacity: number;
}

/** What taking a token left behind: whether one was there, and the (fractional) tokens remaining. */
export interface Take {
  allowed: boolean;
  tokens: number;
}

/**
 * Where buckets live. `null` means the store could not answer and the request goes through. A
 * store in memory answers at once, so that most requests wait for no promise.
 */
export interface BucketStore {
  take(key: string): Take | null | Promise<Take | null>;
}

/** Seconds until a bucket is full again: after that long idle it equals a fresh one and may be forgotten. */
export function secondsToFull(policy: BucketPolicy, tokens: number): number {
  return (policy.capacity - tokens) / policy.ratePerSecond;
}

/** Seconds until the next token: how long a refused client should wait. */
export function secondsToNextToken(policy: BucketPolicy, tokens: number): number {
  return Math.max(0, 1 - tokens) / policy.ratePerSecond;
}

/** Most buckets kept in memory (per store); one costs about a hundred bytes. */
const MAX_BUCKETS = 10_000;
/** What a full store is brought back to when every bucket in it is busy. */
const BUCKETS_AFTER_EVICTION = MAX_BUCKETS * 0.9;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Buckets in this process's memory, refilled lazily when touched. A bucket left alone long enough
 * to fill up is indistinguishable from a new one, so such buckets are dropped when the map grows
 * large. Should too many still be busy (client addresses are many), the oldest go until a tenth
 * of the room is free (their clients merely get a full bucket again): the scan for idle buckets
 * then comes only once per thousand new clients, not with every one.
 */
export function memoryBuckets(policy: BucketPolicy, now: () => number = () => performance.now()): BucketStore {
  const buckets = new Map<string, Bucket>();
  const fullAfterMs = secondsToFull(policy, 0) * 1000;

  const evict = (time: number) => {
    for (const [key, bucket] of buckets) if (time - bucket.at >= fullAfterMs) buckets.delete(key);
    for (const key of buckets.keys()) {
      if (buckets.size <= BUCKETS_AFTER_EVICTION) break;
      buckets.delete(key);
    }
  };

  return {
    take(key) {
      const time = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= MAX_BUCKETS) evict(time);
        bucket = { tokens: policy.capacity, at: time };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(policy.capacity, bucket.tokens + ((time - bucket.at) / 1000) * policy.ratePerSecond);
      bucket.at = time;
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return { allowed, tokens: bucket.tokens };
    },
  };
}
