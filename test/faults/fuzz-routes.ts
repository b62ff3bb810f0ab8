import fc from 'fast-check';
import { hostileJson, hostileString, jsonBody, oversizedBody } from './fuzz-json.ts';
import type { FuzzRequest, FuzzResponse } from './fuzz-http.ts';
import {
  authorizations,
  contentTypes,
  extraHeaders,
  methods,
  pathSegment,
  queryString,
  READABLE_TYPES,
  UNREADABLE_TYPES,
  type AuthChoice,
  type KeyState,
  type QueryParameter,
} from './fuzz-requests.ts';
import { validObject, validValue, type JsonSchema } from './fuzz-schema.ts';
import type { RecordTable, TableName } from './fuzz-state.ts';
import { BODY_LIMIT, type CheckoutPool, type WorldData } from './fuzz-world.ts';

/** An operation of /openapi.json, as far as the fuzz run reads it. */
export interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: unknown[];
}

/** A route the running server serves, with its documented operation (none for the API reference's own pages). */
export interface ServedRoute {
  method: string;
  /** Fastify's template: `/verify-payment/:tx_ref`, `/docs/*`. */
  url: string;
  operation: OpenApiOperation | null;
}

export interface RunContext {
  world: WorldData;
  /** Fresh checkout links for the page routes, whose requests may end them. */
  checkouts: CheckoutPool | null;
}

export type AuthPolicy = 'secret' | 'secret-or-body' | 'none';

/**
 * What a route's answers below 400 look like when they are JSON (`card-start`: a card charge's 3-D
 * Secure link, no envelope); `stream`: Server-Sent Events that never end, of which the run reads
 * the status and headers only (fuzz-http.ts).
 */
export type AnswerShape = 'envelope' | 'attempt-status' | 'document' | 'card-start' | 'stream';

/** The records an accepted answer says it created: the only new rows its table may have. */
export interface Creates {
  table: RecordTable;
  named(request: FuzzRequest, answer: FuzzResponse, ctx: RunContext): string | null;
}

/**
 * What the fuzz run knows of a route beyond its schema (fuzz-route-notes.ts): references worth
 * putting in its path, query and body, the page form it takes, what its accepted requests may
 * change, and requests its handler must refuse.
 */
export interface RouteNotes {
  /** The route asks for this bearer token of its own (not a secret key). */
  token?: (ctx: RunContext) => string;
  /** The route takes a merchant's public key as its bearer token, and refuses secret keys. */
  publicKeyBearer?: boolean;
  params?: Record<string, (ctx: RunContext) => string[]>;
  /** Path parameter values that belong together (a checkout and one of its attempts). */
  paramSets?: (ctx: RunContext) => string[][];
  query?: Record<string, (ctx: RunContext) => fc.Arbitrary<string>>;
  fields?: Record<string, (ctx: RunContext) => fc.Arbitrary<unknown>>;
  form?: (ctx: RunContext) => fc.Arbitrary<Record<string, string>>;
  needsCheckouts?: boolean;
  changes?: TableName[];
  creates?: Creates;
  answers?: AnswerShape;
  /** Well-formed requests that the handler must refuse after looking: duplicates, no funds, refused instruments. */
  refusals?: (ctx: RunContext, build: RequestBuilder) => fc.Arbitrary<FuzzRequest>;
}

export interface RoutePlan {
  key: string;
  route: ServedRoute;
  auth: AuthPolicy;
  body: 'json' | 'form' | 'none';
  needsCheckouts: boolean;
  /** Tables an accepted request may change; every other table must stay exactly as it was. */
  changes: TableName[];
  creates: Creates | null;
  answers: AnswerShape;
  requests(ctx: RunContext): fc.Arbitrary<FuzzRequest>;
  refusals: ((ctx: RunContext) => fc.Arbitrary<FuzzRequest>) | null;
}

/** A well-formed request to a route, for the refusals: path values, key and body as given. */
export type RequestBuilder = (parts: {
  params?: string[];
  query?: string;
  key: string | null;
  body?: Record<string, unknown>;
  form?: Record<string, string>;
  /** The form's anti-forgery token, when it is not to match the cookie's. */
  csrf?: string;
}) => FuzzRequest;

/** Any 32 base62 characters are a token the page could have issued; the double submit only needs cookie and form to agree. */
const CSRF_TOKEN = 'FuzzCsrf'.repeat(4);

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export const routeKey = (method: string, url: string): string => `${method} ${url}`;

/** Fastify's `:name` and `*` parameters of a template, in order. */
const paramNames = (url: string): string[] => [...url.matchAll(/:([A-Za-z_]+)|\*/g)].map((match) => match[1] ?? '*');

const fillPath = (url: string, values: string[]) => {
  let index = 0;
  return url.replace(/:([A-Za-z_]+)|\*/g, () => values[index++] ?? '');
};

/** The plan for a served route: derived from its schema and template, refined by what the notes know. */
export function planRoute(route: ServedRoute, notes: RouteNotes = {}): RoutePlan {
  const bodySchema = route.operation?.requestBody?.content['application/json']?.schema;
  const auth: AuthPolicy =
    notes.token || route.operation?.security?.length
      ? bodySchema?.properties?.secret_key
        ? 'secret-or-body'
        : 'secret'
      : 'none';
  const body = notes.form ? 'form' : bodySchema ? 'json' : 'none';
  const plan: RoutePlan = {
    key: routeKey(route.method, route.url),
    route,
    auth,
    body,
    needsCheckouts: notes.needsCheckouts ?? false,
    changes: notes.changes ?? [],
    creates: notes.creates ?? null,
    answers: notes.answers ?? 'envelope',
    requests: (ctx) => generatedRequests(plan, notes, bodySchema, ctx),
    refusals: notes.refusals ? (ctx) => notes.refusals!(ctx, (parts) => builtRequest(plan, ctx.world, parts)) : null,
  };
  return plan;
}

interface Parts {
  method: string;
  path: string;
  auth: AuthChoice | null;
  contentType: string | null;
  body: string | undefined;
  headers: Record<string, string>;
}

function generatedRequests(
  plan: RoutePlan,
  notes: RouteNotes,
  bodySchema: JsonSchema | undefined,
  ctx: RunContext,
): fc.Arbitrary<FuzzRequest> {
  const { route } = plan;
  const names = paramNames(route.url);
  const independent = fc.tuple(...names.map((name) => pathSegment(notes.params?.[name]?.(ctx) ?? [])));
  const sets = notes.paramSets?.(ctx) ?? [];
  const values = sets.length > 0 ? fc.oneof(independent, fc.constantFrom(...sets)) : independent;
  const query = queryString(queryParameters(route, notes, ctx));
  const path = fc
    .tuple(values, query)
    .map(([params, search]) => ({ path: fillPath(route.url, params) + search, routable: params.every(routable) }));
  const token = notes.token?.(ctx);
  // Few requests with the route's own token: each one it lets through costs the server a full answer (GET /metrics: ~10 ms).
  const auth: fc.Arbitrary<AuthChoice | null> = notes.publicKeyBearer
    ? publicKeyAuthorizations(ctx.world)
    : token
      ? fc.oneof(
          { arbitrary: fc.constant({ header: `Bearer ${token}`, key: 'valid' as const }), weight: 1 },
          {
            arbitrary: authorizations(ctx.world).map((choice) => ({ ...choice, key: 'invalid' as const })),
            weight: 24,
          },
        )
      : plan.auth === 'none'
        ? fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: authorizations(ctx.world), weight: 1 })
        : authorizations(ctx.world);
  const { body, headers } = bodyAndHeaders(plan, notes, bodySchema, ctx);
  return fc
    .record({
      method: methods(route.method),
      path,
      auth,
      contentType:
        plan.body === 'form'
          ? fc.oneof(
              { arbitrary: fc.constant('application/x-www-form-urlencoded'), weight: 6 },
              { arbitrary: contentTypes, weight: 1 },
            )
          : contentTypes,
      body,
      headers,
    })
    .map(({ path: { path: target, routable: reachable }, ...parts }) =>
      finished(plan, ctx.world, { ...parts, path: target }, reachable),
    );
}

/** Mostly the merchants' public keys; now and then what any keyed route is sent, where only a public key is valid. */
function publicKeyAuthorizations(world: WorldData): fc.Arbitrary<AuthChoice> {
  const publicKeys = [world.a, world.b].flatMap((merchant) => [merchant.test_public_key, merchant.live_public_key]);
  const isPublic = (header: string | null) =>
    header !== null && publicKeys.includes(/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '');
  return fc.oneof(
    {
      arbitrary: fc.constantFrom(...publicKeys).map((key) => ({ header: `Bearer ${key}`, key: 'valid' as const })),
      weight: 3,
    },
    {
      arbitrary: authorizations(world).map((choice) => ({
        header: choice.header,
        key: isPublic(choice.header) ? ('valid' as const) : ('invalid' as const),
      })),
      weight: 2,
    },
  );
}

/** The server's router refuses longer parameters (`maxParamLength`) with its 404. */
const MAX_PARAM_LENGTH = 200;

/**
 * A parameter value the router reads as that parameter: not empty, not a step (`.`, `..`), no
 * `/`, `?`, `#` or `;` that would end or split it, no raw byte outside ASCII (which Node's parser
 * refuses before any route is looked at), no broken percent-encoding and not too long (both the
 * router's 404, which an answer to HEAD cannot show).
 */
const routable = (value: string) =>
  value !== '' &&
  value !== '.' &&
  value !== '..' &&
  value.length <= MAX_PARAM_LENGTH &&
  !/[/?#;]|[^\x21-\x7e]/.test(value) &&
  decodes(value);

const decodes = (value: string) => {
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
};

function queryParameters(route: ServedRoute, notes: RouteNotes, ctx: RunContext): QueryParameter[] {
  return (route.operation?.parameters ?? [])
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => {
      const documented = validValue(parameter.schema).map(String);
      const known = notes.query?.[parameter.name]?.(ctx);
      return { name: parameter.name, values: known ? fc.oneof(documented, known) : documented };
    });
}

function bodyAndHeaders(plan: RoutePlan, notes: RouteNotes, bodySchema: JsonSchema | undefined, ctx: RunContext) {
  const oversized = oversizedBody(BODY_LIMIT);
  if (plan.body === 'form') {
    const form = formParts(notes.form!(ctx), ctx.world.url);
    return {
      body: fc.oneof(
        { arbitrary: form.map((parts) => parts.body), weight: 20 },
        { arbitrary: oversized, weight: 1 },
        { arbitrary: hostileJson, weight: 1 },
      ),
      headers: fc
        .tuple(
          form.map((parts) => parts.headers),
          extraHeaders,
        )
        .map(([formHeaders, extra]) => ({ ...formHeaders, ...extra })),
    };
  }
  if (plan.body === 'json') {
    const fields = Object.fromEntries(Object.entries(notes.fields ?? {}).map(([name, field]) => [name, field(ctx)]));
    const valid = fc
      .tuple(validObject(bodySchema!), fc.record(fields))
      .map(([body, known]) => ({ ...body, ...definedOnly(known) }));
    return {
      body: fc.oneof({ arbitrary: jsonBody(valid, 3), weight: 20 }, { arbitrary: oversized, weight: 1 }),
      headers: extraHeaders,
    };
  }
  // Routes that take no body still get one now and then: ignored, or refused, never a crash.
  const stray = fc.oneof(fc.constantFrom('[]', '{}', ''), hostileJson, oversized);
  return {
    body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: stray, weight: 1 }),
    headers: extraHeaders,
  };
}

/** A known value replaces the generated one; `undefined` keeps what was generated. */
function definedOnly(known: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(known).filter(([, value]) => value !== undefined));
}

/** A page form: the double-submit token in cookie and form (mostly matching), our origin or none, fields as given or broken. */
function formParts(
  fields: fc.Arbitrary<Record<string, string>>,
  base: string,
): fc.Arbitrary<{ body: string; headers: Record<string, string> }> {
  const token = fc.oneof(
    { arbitrary: fc.constant(CSRF_TOKEN), weight: 10 },
    { arbitrary: fc.constantFrom('', 'x', CSRF_TOKEN.slice(1), `${CSRF_TOKEN}x`, CSRF_TOKEN.toLowerCase()), weight: 1 },
    { arbitrary: hostileString, weight: 1 },
  );
  const cookie = fc.oneof(
    { arbitrary: fc.constant(`lipira_csrf=${CSRF_TOKEN}`), weight: 10 },
    {
      arbitrary: fc.constantFrom(
        null,
        'lipira_csrf=',
        `lipira_csrf=${CSRF_TOKEN}; lipira_csrf=other`,
        `a=b; lipira_csrf=${CSRF_TOKEN}=`,
        `lipira_csrf=${'x'.repeat(3000)}`,
        '=;=;;',
      ),
      weight: 2,
    },
  );
  const origin = fc.oneof(
    { arbitrary: fc.constant(null), weight: 6 },
    { arbitrary: fc.constant(new URL(base).origin), weight: 3 },
    { arbitrary: fc.constantFrom('https://evil.example', 'null', ''), weight: 1 },
  );
  const text = fc.oneof(
    {
      arbitrary: fc.tuple(fields, token).map(([values, csrf]) => new URLSearchParams({ csrf, ...values }).toString()),
      weight: 10,
    },
    {
      arbitrary: fc
        .tuple(fields, hostileString)
        .map(
          ([values, odd]) =>
            `${new URLSearchParams({ csrf: CSRF_TOKEN, ...values }).toString()}&${Object.keys(values)[0] ?? 'csrf'}=${encodeURIComponent(Buffer.from(odd).toString())}`,
        ),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(
        '%zz=%',
        '&&&',
        '=',
        'csrf',
        `csrf=${CSRF_TOKEN}&mobile=%E0%A4%A`,
        `{"csrf":"${CSRF_TOKEN}"}`,
        `csrf[]=${CSRF_TOKEN}`,
      ),
      weight: 1,
    },
  );
  return fc.record({ text, cookie, origin }).map(({ text: body, cookie: cookieHeader, origin: originHeader }) => ({
    body,
    headers: {
      ...(cookieHeader !== null && { cookie: cookieHeader }),
      ...(originHeader !== null && { origin: originHeader }),
    },
  }));
}

function finished(plan: RoutePlan, world: WorldData, parts: Parts, routable: boolean): FuzzRequest {
  const headers: Record<string, string> = { ...parts.headers };
  if (parts.auth && parts.auth.header !== null) headers.authorization = parts.auth.header;
  if (parts.body !== undefined && parts.contentType !== null) headers['content-type'] = parts.contentType;
  const routed =
    routable && (parts.method === plan.route.method || (plan.route.method === 'GET' && parts.method === 'HEAD'));
  const readsBody = routed && !BODYLESS.has(parts.method);
  const bodyBytes = parts.body === undefined ? 0 : Buffer.byteLength(parts.body);
  const oversized = readsBody && bodyBytes > BODY_LIMIT;
  const text = parts.body === undefined ? '' : Buffer.from(parts.body).toString('utf8');
  const type = headers['content-type'];
  const contentType =
    type === undefined || READABLE_TYPES.includes(type)
      ? 'readable'
      : UNREADABLE_TYPES.includes(type)
        ? 'unreadable'
        : 'unknown';
  const readable = !/[^\x21-\x7e]/.test(parts.path);
  const headBytes =
    parts.method.length +
    parts.path.length +
    Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + Buffer.byteLength(value) + 4, 0);
  return {
    method: parts.method,
    path: parts.path,
    headers,
    ...(parts.body !== undefined && { body: parts.body }),
    intent: {
      // A legacy body's key is only read once the body is: not when its type or size is refused first.
      key: keyState(plan.auth, parts.auth, bodyBytes > BODY_LIMIT || contentType !== 'readable' ? null : text, world),
      routed,
      contentType,
      oversized,
      notJsonObject: readsBody && plan.body !== 'form' && !oversized && text.trim() !== '' && !isJsonObject(text),
      readable,
      headBytes,
    },
  };
}

/** Whether the request presents a usable key, as far as the request alone tells. */
function keyState(policy: AuthPolicy, auth: AuthChoice | null, body: string | null, world: WorldData): KeyState {
  if (policy === 'none') return 'valid';
  if ((auth && auth.header !== null) || policy === 'secret') return auth?.key ?? 'invalid';
  // Legacy creates without a header: the key is the body's `secret_key`, once the body is read
  // (and not when the body is refused first: over the limit, under no media type, holding a NUL,
  // a `__proto__` key or nesting past 32 levels).
  if (body === null || body.includes('\\u0000')) return 'unknown';
  if (body.trim() === '') return 'invalid';
  const parsed = parseJson(body);
  if (!isObject(parsed) || refusedWhenRead(parsed)) return 'unknown';
  return typeof parsed.secret_key === 'string' && world.principals.has(parsed.secret_key) ? 'valid' : 'invalid';
}

/** What the body parser refuses before a key in the body is read: a `__proto__` key, or objects and arrays nested past 32 levels. */
function refusedWhenRead(value: object, depth = 1): boolean {
  if (depth > 32) return true;
  return Object.entries(value).some(
    ([key, child]) =>
      (key === '__proto__' && !Array.isArray(value)) ||
      (typeof child === 'object' && child !== null && refusedWhenRead(child, depth + 1)),
  );
}

function builtRequest(plan: RoutePlan, world: WorldData, parts: Parameters<RequestBuilder>[0]): FuzzRequest {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (parts.form) {
    body = new URLSearchParams({ csrf: parts.csrf ?? CSRF_TOKEN, ...parts.form }).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers.cookie = `lipira_csrf=${CSRF_TOKEN}`;
  } else if (parts.body) {
    body = JSON.stringify(parts.body);
    headers['content-type'] = 'application/json';
  }
  if (parts.key) headers.authorization = `Bearer ${parts.key}`;
  const path = fillPath(plan.route.url, parts.params ?? []) + (parts.query ?? '');
  return finished(
    plan,
    world,
    {
      method: plan.route.method,
      path,
      auth: parts.key ? { header: `Bearer ${parts.key}`, key: 'valid' } : null,
      contentType: headers['content-type'] ?? null,
      body,
      headers,
    },
    (parts.params ?? []).every(routable),
  );
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isJsonObject = (text: string) => isObject(parseJson(text));
