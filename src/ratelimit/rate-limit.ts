import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { App } from '../http/app-type.ts';
import { ApiError } from '../shared/errors.ts';
import { redisBuckets } from './redis-buckets.ts';
import { memoryBuckets, secondsToFull, secondsToNextToken, type BucketPolicy, type Take } from './token-bucket.ts';

/**
 * Limits requests per merchant and mode (what a secret key stands for, so a rolled key shares its
 * predecessor's bucket and no key is ever kept) with a token bucket: `rateLimitPerSecond`
 * sustained, `rateLimitBurst` at once. Buckets live in Redis when `redisUrl` is set, so that all
 * processes share one limit, and in memory otherwise. Limited responses carry the IETF
 * `RateLimit-*` headers; a refused one is a 429 with `Retry-After`. Routes without a secret key
 * are not limited here. Returns a function that releases the Redis connection.
 */
export async function registerRateLimit(app: App, config: Config): Promise<() => Promise<void>> {
  const policy: BucketPolicy = { ratePerSecond: config.rateLimitPerSecond, capacity: config.rateLimitBurst };
  const store = config.redisUrl ? await redisBuckets(config.redisUrl, policy, app.log) : memoryBuckets(policy);

  // preValidation, not onRequest or preHandler: the authentication hooks (registered earlier, so
  // run first) have then found the principal, including a legacy `secret_key` from the body; and
  // requests that will fail validation are counted too.
  // A callback hook: the memory store answers at once, and then the request waits for no promise.
  app.addHook('preValidation', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const principal = request.principal;
    if (!principal) return done();
    const take = store.take(`${principal.merchantId}:${principal.mode}`);
    if (take instanceof Promise) take.then((taken) => done(limit(reply, taken)), done);
    else done(limit(reply, take));
  });

  /** Sets the rate limit headers; the error to answer with when the bucket was empty. */
  function limit(reply: FastifyReply, take: Take | null): ApiError | undefined {
    if (!take) return undefined; // the store is down: let the request through
    reply.header('RateLimit-Limit', policy.capacity);
    reply.header('RateLimit-Remaining', Math.floor(take.tokens));
    // When the bucket is full again: the client's whole burst is back.
    reply.header('RateLimit-Reset', Math.ceil(secondsToFull(policy, take.tokens)));
    if (take.allowed) return undefined;
    reply.header('Retry-After', Math.max(1, Math.ceil(secondsToNextToken(policy, take.tokens))));
    return new ApiError('rateLimited');
  }

  return () => store.close();
}
