import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { authenticateSecretKey, type Principal } from '../merchants/merchant-service.ts';
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

  app.addHook('onRequest', async (request) => {
    const policy = request.routeOptions.config.auth ?? 'none';
    if (policy === 'none') return;
    const token = bearerToken(request);
    if (token === null && policy === 'secret-or-body') return; // decided once the body is parsed
    request.principal = await principalFor(db, token);
  });

  app.addHook('preValidation', async (request) => {
    if (request.principal || request.routeOptions.config.auth !== 'secret-or-body') return;
    const body = request.body as Record<string, unknown> | undefined;
    const token = typeof body?.secret_key === 'string' ? body.secret_key : null;
    request.principal = await principalFor(db, token);
  });
}

async function principalFor(db: Kysely<DB>, token: string | null): Promise<Principal> {
  const principal = token === null ? null : await authenticateSecretKey(db, token);
  if (!principal) throw new ApiError('unauthenticated');
  return principal;
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
