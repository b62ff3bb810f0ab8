import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { ApiError } from '../shared/errors.ts';
import { clientAddress } from './client-address.ts';
import { connectRateLimitRedis, redisBuckets } from './redis-buckets.ts';
import { memoryBuckets, secondsToFull, secondsToNextToken, type BucketPolicy, type Take } from './token-bucket.ts';

/** A callback hook's step: `done()` to go on, `done(error)` to answer with the error. */
export type Limit = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export interface RateLimits {
  /**
   * Per merchant and mode (what a secret key stands for, so a rolled key shares its predecessor's
   * bucket and no key is ever kept), for requests authenticated by a key: `rateLimitPerSecond`
   * sustained, `rateLimitBurst` at once. Every such response carries the IETF `RateLimit-*`
   * headers. Requests without a principal pass. Public keys (the browser integrations) have a
   * bucket of their own per merchant and mode, so that shoppers' browsers, or anyone who copied
   * the key from a shop's page, can never use up the merchant's server calls.
   */
  byKey: Limit;
  /**
   * Per client address, for requests without a valid key (hosted pages, status polls, requests
   * with a missing or unknown key), taken before any key is looked up: a flood of made-up keys is
   * refused before it reaches the database. Customers behind one carrier's NAT share an address,
   * hence generous defaults. Only a refusal carries the `RateLimit-*` headers.
   */
  byAddress: Limit;
  /** Releases the Redis connection. */
  close(): Promise<void>;
}

/**
 * Token buckets, in Redis when `redisUrl` is set so that all processes share each limit, in memory
 * otherwise. A refused request is a 429 with `Retry-After`.
 */
export async function openRateLimits(config: Config, log: FastifyBaseLogger): Promise<RateLimits> {
  const keyPolicy: BucketPolicy = { ratePerSecond: config.rateLimitPerSecond, capacity: config.rateLimitBurst };
  const addressPolicy: BucketPolicy = {
    ratePerSecond: config.rateLimitPerAddressPerSecond,
    capacity: config.rateLimitAddressBurst,
  };
  const redis = config.redisUrl ? await connectRateLimitRedis(config.redisUrl, log) : null;
  // Merchant ids are random and never start with `address:`, so the two kinds of bucket never meet.
  const keyBuckets = redis ? redisBuckets(redis, keyPolicy, 'lipira:ratelimit:') : memoryBuckets(keyPolicy);
  const addressBuckets = redis
    ? redisBuckets(redis, addressPolicy, 'lipira:ratelimit:address:')
    : memoryBuckets(addressPolicy);
  const addressHeader = config.clientAddressHeader;

  /** Sets the headers every response limited by key carries; the error to answer with when the bucket was empty. */
  const keyVerdict = (reply: FastifyReply, taken: Take | null): ApiError | undefined => {
    if (!taken) return undefined; // the store is down: let the request through
    setLimitHeaders(reply, keyPolicy, taken);
    return taken.allowed ? undefined : refuse(reply, keyPolicy, taken);
  };
  /** A request within its address's limit is answered as if there were none. */
  const addressVerdict = (reply: FastifyReply, taken: Take | null): ApiError | undefined => {
    if (!taken || taken.allowed) return undefined;
    setLimitHeaders(reply, addressPolicy, taken);
    return refuse(reply, addressPolicy, taken);
  };

  // Callback steps: the memory store answers at once, and then the request waits for no promise.
  return {
    byKey(request, reply, done) {
      const principal = request.principal;
      if (!principal) return done();
      const taken = keyBuckets.take(`${principal.merchantId}:${principal.mode}${principal.publicKey ? ':public' : ''}`);
      if (taken instanceof Promise) taken.then((answer) => done(keyVerdict(reply, answer)), done);
      else done(keyVerdict(reply, taken));
    },
    byAddress(request, reply, done) {
      const taken = addressBuckets.take(clientAddress(request, addressHeader));
      if (taken instanceof Promise) taken.then((answer) => done(addressVerdict(reply, answer)), done);
      else done(addressVerdict(reply, taken));
    },
    close: async () => redis?.close(),
  };
}

function setLimitHeaders(reply: FastifyReply, policy: BucketPolicy, taken: Take): void {
  reply.header('RateLimit-Limit', policy.capacity);
  reply.header('RateLimit-Remaining', Math.floor(taken.tokens));
  // When the bucket is full again: the client's whole burst is back.
  reply.header('RateLimit-Reset', Math.ceil(secondsToFull(policy, taken.tokens)));
}

function refuse(reply: FastifyReply, policy: BucketPolicy, taken: Take): ApiError {
  reply.header('Retry-After', Math.max(1, Math.ceil(secondsToNextToken(policy, taken.tokens))));
  return new ApiError('rateLimited');
}
