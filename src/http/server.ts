import { randomUUID } from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { ApiError, type ErrorCode } from '../shared/errors.ts';
import { registerAuthentication } from './auth.ts';
import { answerClientError } from './client-errors.ts';
import { ErrorEnvelope } from './envelope.ts';
import { trackInFlight, type InFlight } from './in-flight.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { requestLogger } from './request-logger.ts';
import { registerApiDocs } from './api-docs.ts';
import { registerMetrics } from '../metrics/metrics.ts';
import { registerRateLimit } from '../ratelimit/rate-limit.ts';
import { registerMethodNotAllowed, type RouteEntry } from './method-not-allowed.ts';
import { ajvPlugin, laravelFieldErrors } from './validation.ts';
import { registerCheckoutPageRoutes } from '../checkout/checkout-page-routes.ts';
import type { PaymentDeps } from '../checkout/checkout-payments.ts';
import { registerCheckoutRoutes } from '../checkout/checkout-routes.ts';
import { registerHealthRoutes, type Lifecycle } from '../health/health-routes.ts';
import { registerWebhookRoutes } from '../webhooks/webhook-routes.ts';
import { registerBalanceRoutes } from '../ledger/balance-routes.ts';
import { registerMobileMoneyRoutes } from '../payments/mobile-money-routes.ts';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface Server {
  app: App;
  inFlight: InFlight;
  /** Every route the application serves (not the 405 answers): what the API document must cover. */
  routes: RouteEntry[];
}

export interface ServerDeps {
  config: Config;
  database: Database;
  payments: PaymentDeps;
  logger: FastifyBaseLogger | false;
  lifecycle: Lifecycle;
}

export async function buildServer({ config, database, payments, logger, lifecycle }: ServerDeps): Promise<Server> {
  const app = Fastify({
    loggerInstance: logger || undefined,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // While shutting down, requests on connections still open are served (with Connection:
    // close), not refused: see Gateway.close.
    return503OnClosing: false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // Clients join base URLs and paths carelessly; `//payment` and `/payment/` mean `/payment`.
    // Parameters a little longer than any reference reach the handler, which answers 404.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      sendError(reply, toApiError(error, request.log));
    },
    ajv: {
      customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false },
      plugins: [ajvPlugin],
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  app.addSchema(ErrorEnvelope);
  app.server.headersTimeout = config.headersTimeoutMs;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // The listener is closed: each client is told to close its connection after this answer.
    if (lifecycle.closing) reply.header('connection', 'close');
    done();
  });
  const inFlight = trackInFlight(app);
  registerJsonBodyParser(app);
  registerAuthentication(app, database.db);
  // The request line is `info`: at a quieter level the hook would only build fields to discard.
  if (logger && REQUEST_LINE_LEVELS.has(logger.level)) app.addHook('onResponse', logRequestLine);
  app.setErrorHandler((error, request, reply) => sendError(reply, toApiError(error as FastifyError | ApiError, request.log)));
  app.setNotFoundHandler((_request, reply) => sendError(reply, new ApiError('routeNotFound')));

  await registerApiDocs(app, config);
  const closeRateLimit = await registerRateLimit(app, config);
  app.addHook('onClose', closeRateLimit);
  const routes = await registerMethodNotAllowed(app, async () => {
    registerMetrics(app, { config, db: database.db });
    registerHealthRoutes(app, database, lifecycle);
    registerCheckoutRoutes(app, { config, db: database.db, transact: database.transact });
    registerCheckoutPageRoutes(app, { config, payments });
    registerWebhookRoutes(app, { config, db: database.db });
    registerMobileMoneyRoutes(app, payments);
    registerBalanceRoutes(app, database.db);
  });
  return { app, inFlight, routes };
}

const REQUEST_LINE_LEVELS = new Set(['info', 'debug', 'trace']);

/** One line per answered request (a callback hook: no promise per request). */
function logRequestLine(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  request.log.info(
    {
      route: request.routeOptions.url ?? null,
      method: request.method,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      merchant: request.principal?.merchantId ?? null,
    },
    'request',
  );
  done();
}

/** What a failure means for the client: one of the error table's entries (details stay in the log). */
export function toApiError(error: FastifyError | ApiError, log: FastifyBaseLogger): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return new ApiError('validation', laravelFieldErrors(error.validation));
  const known = FASTIFY_ERRORS[error.code];
  if (known) return new ApiError(known);
  if (isDatabaseUnavailable(error)) {
    log.warn({ err: error }, 'database unavailable');
    return new ApiError('unavailable');
  }
  log.error({ err: error }, 'unexpected error');
  return new ApiError('internal');
}

const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'bodyTooLarge',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'notJsonObject',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'notJsonObject',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'notJsonObject',
  FST_ERR_BAD_URL: 'routeNotFound',
  FST_ERR_MAX_PARAM_LENGTH: 'routeNotFound',
  FST_ERR_ASYNC_CONSTRAINT: 'routeNotFound',
};

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  // Unavailability is passing (a database outage, a restart): a second is a fair first wait.
  if (error.code === 'unavailable') reply.header('retry-after', '1');
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ status: 'failed', message: error.body, data: null }));
}
