import type { FastifyBaseLogger } from 'fastify';
import { Redis, type Result } from 'ioredis';
import { secondsToFull, type BucketPolicy, type BucketStore } from './token-bucket.ts';

/**
 * The token bucket of `memoryBuckets`, in one atomic step on the Redis server. The clock is
 * Redis's own (`TIME`), so processes whose clocks disagree still share one limit. The hash holds
 * the tokens left and when they were counted; it expires once the bucket would be full anyway.
 * Returns whether a token was taken, and the tokens left as text (a Lua number would lose its
 * fraction as a Redis integer).
 *
 * KEYS[1] bucket; ARGV[1] tokens per second; ARGV[2] capacity; ARGV[3] milliseconds to fill up.
 */
const TAKE_TOKEN = `
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1]) or capacity
local at = tonumber(saved[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate / 1000)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { allowed, tostring(tokens) }
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    lipiraTakeToken(
      key: string,
      ratePerSecond: number,
      capacity: number,
      fillMs: number,
    ): Result<[number, string], Context>;
  }
}

/** A Redis that answers slower than this is treated as down: the request must not wait for it. */
const COMMAND_TIMEOUT_MS = 250;
const WARNING_INTERVAL_MS = 10_000;

/** One connection to Redis for every bucket store of the process. */
export interface RateLimitRedis {
  redis: Redis;
  /** Logs that Redis could not answer, at most every 10 s. */
  warn(error: unknown): void;
  close(): Promise<void>;
}

/**
 * Connects to the Redis that holds the buckets. When Redis cannot answer, requests go through (a
 * payment gateway must not go down with its rate limiter's cache) and a warning is logged at most
 * every 10 s; ioredis keeps reconnecting in the background.
 */
export async function connectRateLimitRedis(url: string, log: FastifyBaseLogger): Promise<RateLimitRedis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Fail at once while disconnected instead of queueing commands until Redis is back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
  });
  redis.defineCommand('lipiraTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });

  let warnedAt = -Infinity;
  const warn = (error: unknown) => {
    if (performance.now() - warnedAt < WARNING_INTERVAL_MS) return;
    warnedAt = performance.now();
    log.warn({ err: error }, 'rate limiter: Redis unavailable, requests are not limited');
  };
  redis.on('error', warn);
  // Waiting for the first connection lets the first requests be counted; if it fails, start anyway.
  await redis.connect().catch(warn);
  return {
    redis,
    warn,
    async close() {
      // QUIT waits for pending replies; without a connection there is nothing to wait for.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/**
 * Buckets shared through Redis, under `prefix` (every process uses the same one, so they share
 * each bucket). A bucket Redis cannot answer for lets its request through.
 */
export function redisBuckets({ redis, warn }: RateLimitRedis, policy: BucketPolicy, prefix: string): BucketStore {
  const fillMs = Math.ceil(secondsToFull(policy, 0) * 1000) + 1000;
  return {
    async take(key) {
      try {
        const [allowed, tokens] = await redis.lipiraTakeToken(
          prefix + key,
          policy.ratePerSecond,
          policy.capacity,
          fillMs,
        );
        return { allowed: allowed === 1, tokens: Number(tokens) };
      } catch (error) {
        warn(error);
        return null;
      }
    },
  };
}
