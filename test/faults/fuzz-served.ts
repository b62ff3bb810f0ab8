import type { TestGateway } from '../helpers/gateway.ts';
import { routeKey, type OpenApiOperation, type ServedRoute } from './fuzz-routes.ts';

/**
 * Every route the running server serves, so that a route added later is fuzzed without anyone
 * listing it: the application's routes as registered (`Gateway.routes`), each with its operation
 * from /openapi.json, plus the routes registered outside the application (the API reference:
 * /openapi.json and /docs/…), read from Fastify's own route tree. HEAD is Fastify's copy of GET,
 * and the 405 answers are not routes; both are fuzzed through the methods the requests use.
 */
export async function servedRoutes(gw: TestGateway): Promise<{ routes: ServedRoute[]; undocumented: string[] }> {
  const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  const operations = new Map<string, OpenApiOperation>();
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(byMethod))
      operations.set(routeKey(method.toUpperCase(), path.replace(/\{([A-Za-z_]+)\}/g, ':$1')), operation);
  }
  const registered = gw.gateway.routes.filter((route) => route.method !== 'HEAD');
  const applicationUrls = new Set(registered.map((route) => route.url));
  const routes: ServedRoute[] = registered.map((route) => ({
    method: route.method,
    url: route.url,
    operation: operations.get(routeKey(route.method, route.url)) ?? null,
  }));
  for (const { url, methods } of routeTree(gw.gateway.app.printRoutes({ commonPrefix: false }))) {
    if (applicationUrls.has(url)) continue;
    for (const method of methods)
      if (method !== 'HEAD') routes.push({ method, url, operation: operations.get(routeKey(method, url)) ?? null });
  }
  const served = new Set(routes.map((route) => routeKey(route.method, route.url)));
  return { routes, undocumented: [...operations.keys()].filter((key) => !served.has(key)) };
}

/**
 * Reads `printRoutes({ commonPrefix: false })`: one line per node, four characters of indent per
 * level, the methods in brackets, children written as what follows their parent's path: `/…`, or
 * a split of the parent's last segment (`.csv` after `/dashboard/payments`, `-everywhere` after
 * `/dashboard/logout`); a bare `*` is a wildcard segment below it.
 */
function routeTree(printed: string): Array<{ url: string; methods: string[] }> {
  const parents: string[] = [];
  const routes: Array<{ url: string; methods: string[] }> = [];
  for (const line of printed.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const segment = match[2]!;
    const parent = parents[depth - 1] ?? '';
    const url = segment === '*' ? `${parent}/*` : parent + segment;
    parents.length = depth;
    parents.push(url);
    if (match[3]) routes.push({ url, methods: match[3].split(', ') });
  }
  return routes;
}
