import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import { isPublicKeyShape, keyKindOf } from '../merchants/api-keys.ts';
import { lookUpKey, rememberedPrincipal, wasValidKey, type Principal } from '../merchants/merchant-service.ts';
import type { Limit } from '../ratelimit/rate-limit.ts';
import { ApiError } from '../shared/errors.ts';

/**
 * How a route authenticates (route `config.auth`):
 * - `secret`: `Authorization: Bearer <secret key>`;
 * - `secret-or-body`: the same, or, for the legacy generation, `secret_key` in the JSON body;
 * - `public`: a public key, as `Authorization: Bearer <public key>`, or as the `public_key` field of
 *   a form route (`config.form`: the HTML checkout): the browser integrations, which may only
 *   create checkout sessions;
 * - `none`: no key needed.
 * A public key on a secret route, and a secret key on a public one, are refused by name (401):
 * the first is a merchant's mistake to point out, the second a secret sent from a browser.
 */
export type AuthPolicy = 'secret' | 'secret-or-body' | 'public' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
    /** Set on the health probes: a load balancer's probe refused by an address limit would take the process out of service. */
    unlimited?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * Finds the principal of requests to routes that need a key, or answers 401. Every request that
 * does not carry a key this process knows to be valid (routes needing none included) first takes
 * a token from its client address (`limitAddress`), before any key is looked up. Requests with a
 * public key always do: anyone can copy a public key from a shop's page, so its requests are
 * limited per address as well as per key.
 */
export function registerAuthentication(
  app: FastifyInstance,
  { db, clock }: { db: Kysely<DB>; clock: Clock },
  limitAddress: Limit,
): void {
  app.decorateRequest('principal', null);

  // Callback hooks, not async ones: the many requests that need no key cost no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    const policy = config.auth ?? 'none';
    if (policy === 'none') return config.unlimited ? done() : limitAddress(request, reply, done);
    const token = bearerToken(request);
    if (policy === 'public') {
      // A form's key is its `public_key` field, read once the body is parsed (a browser's form sends no
      // Authorization header: one there is ignored); any other route's is in the header.
      return limitAddress(request, reply, (limited) =>
        limited || config.form ? done(limited) : authenticatePublic(request, token, done),
      );
    }
    if (token === null && policy === 'secret-or-body') return done(); // a body key is read once parsed
    authenticate(request, reply, token, done);
  });

  app.addHook('preValidation', (request, reply, done) => {
    const { auth: policy, form } = request.routeOptions.config;
    if (request.principal || (policy !== 'secret-or-body' && !(policy === 'public' && form))) return done();
    const body = request.body as Record<string, unknown> | undefined;
    if (policy === 'public') return authenticatePublic(request, stringField(body, 'public_key'), done);
    authenticate(request, reply, stringField(body, 'secret_key'), done);
  });

  /**
   * A key looked up within the last second is answered at once, with no promise; one this process
   * has found valid before is looked up again. Anything else pays its address first: a made-up
   * key, and a missing one, are limited before they reach the database.
   */
  function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string | null,
    done: (error?: Error) => void,
  ): void {
    if (token !== null && isPublicKeyShape(token)) return done(new ApiError('publicKeyRefused'));
    const remembered = token === null ? null : rememberedPrincipal(db, token, clock.now());
    if (remembered) return admit(request, remembered, done);
    if (remembered === undefined && wasValidKey(db, token!)) return lookUp(request, token!, done);
    limitAddress(request, reply, (limited) => {
      if (limited) done(limited);
      else if (remembered === null) admit(request, null, done);
      else lookUp(request, token!, done);
    });
  }

  /** A public key, its address already paid: remembered, or looked up. */
  function authenticatePublic(request: FastifyRequest, token: string | null, done: (error?: Error) => void): void {
    const kind = token === null ? null : keyKindOf(token);
    if (kind === 'secret') return done(new ApiError('secretKeyRefused'));
    if (kind === null) return done(new ApiError('unauthenticated'));
    const remembered = rememberedPrincipal(db, token!, clock.now());
    if (remembered === undefined) lookUp(request, token!, done);
    else admit(request, remembered, done);
  }

  function lookUp(request: FastifyRequest, token: string, done: (error?: Error) => void): void {
    lookUpKey(db, token, clock.now()).then((principal) => admit(request, principal, done), done);
  }
}

function stringField(body: Record<string, unknown> | undefined, name: string): string | null {
  const value = body?.[name];
  return typeof value === 'string' ? value : null;
}

function admit(request: FastifyRequest, principal: Principal | null, done: (error?: Error) => void): void {
  if (!principal) return done(new ApiError('unauthenticated'));
  request.principal = principal;
  done();
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : '';
}

/** The principal of an authenticated route; the hooks above guarantee it is there. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('unauthenticated');
  return request.principal;
}
