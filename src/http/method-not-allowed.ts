import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Registers the routes `register` adds, then answers 405 (not 404) for every other method on
 * each of their paths: a client calling GET where POST belongs learns that the path is right.
 */
export function registerMethodNotAllowed(app: FastifyInstance, register: () => void): void {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByUrl.set(route.url, methods);
  });
  register();
  for (const [url, taken] of [...methodsByUrl]) {
    const free = METHODS.filter((method) => !taken.has(method));
    if (free.length === 0) continue;
    app.route({
      method: free,
      url,
      config: { ignoreBody: true },
      handler: async () => {
        throw new ApiError('methodNotAllowed');
      },
    });
  }
}
