import type { FastifyInstance } from 'fastify';
import type { AuthPolicy } from './auth.ts';
import { ApiError } from '../shared/errors.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
  /** How it authenticates (`config.auth`): what tests of every keyed route walk. */
  auth: AuthPolicy;
}

/**
 * Registers the routes `register` adds, then answers 405 (not 404) for every other method on
 * each of their paths: a client calling GET where POST belongs learns that the path is right.
 * Returns the routes registered, for whoever must know them all (the API document's test).
 */
export async function registerMethodNotAllowed(
  app: FastifyInstance,
  register: () => Promise<void>,
): Promise<RouteEntry[]> {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      routes.push({ method, url: route.url, hidden: route.schema?.hide === true, auth: route.config?.auth ?? 'none' });
  });
  await register();
  const registered = [...routes];
  const methodsByUrl = new Map<string, Set<string>>();
  for (const { method, url } of registered) methodsByUrl.set(url, (methodsByUrl.get(url) ?? new Set()).add(method));
  for (const [url, taken] of methodsByUrl) {
    const free = METHODS.filter((method) => !taken.has(method));
    if (free.length === 0) continue;
    app.route({
      method: free,
      url,
      config: { ignoreBody: true },
      schema: { hide: true },
      handler: async () => {
        throw new ApiError('methodNotAllowed');
      },
    });
  }
  return registered;
}
