import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { lookUpSecretKey, rememberedPrincipal, type Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';

/**
 * How a route authenticates (route `config.auth`):
 * - `secret`: `Authorization: Bearer <secret key>`;
 * - `secret-or-body`: the same, or, for the legacy generation, `secret_key` in the JSON body;
 * - `none`: no key needed.
 */
export type AuthPolicy = 'secret' | 'secret-or-body' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function registerAuthentication(app: FastifyInstance, db: Kysely<DB>): void {
  app.decorateRequest('principal', null);

  // Callback hooks, not async ones: the many requests that need no key cost no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const policy = request.routeOptions.config.auth ?? 'none';
    const token = policy === 'none' ? null : bearerToken(request);
    if (policy === 'none' || (token === null && policy === 'secret-or-body')) return done(); // a body key is read once parsed
    authenticate(request, token, done);
  });

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.principal || request.routeOptions.config.auth !== 'secret-or-body') return done();
    const body = request.body as Record<string, unknown> | undefined;
    authenticate(request, typeof body?.secret_key === 'string' ? body.secret_key : null, done);
  });

  // A key looked up within the last second is answered at once, with no promise.
  function authenticate(request: FastifyRequest, token: string | null, done: (error?: Error) => void): void {
    if (token === null) return admit(request, null, done);
    const remembered = rememberedPrincipal(db, token);
    if (remembered !== undefined) return admit(request, remembered, done);
    lookUpSecretKey(db, token).then((principal) => admit(request, principal, done), done);
  }
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
