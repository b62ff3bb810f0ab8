import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { GatewayContext } from '../context.ts';
import { ApiError } from '../shared/errors.ts';
import type { App } from './app-type.ts';
import { sendError, toApiError } from './error-reply.ts';
import { registerAuthentication } from './auth.ts';
import { answerClientError } from './client-errors.ts';
import { limitConnectionsPerAddress } from './address-connections.ts';
import { defaultResponseHeaders } from './response-headers.ts';
import { ErrorEnvelope } from './envelope.ts';
import { trackInFlight, type InFlight } from './in-flight.ts';
import { shedWhenOverloaded } from './overload.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { requestLogger } from './request-logger.ts';
import { registerApiDocs } from './api-docs.ts';
import { registerMetrics } from '../metrics/metrics.ts';
import { openRateLimits } from '../ratelimit/rate-limit.ts';
import { registerMethodNotAllowed, type RouteEntry } from './method-not-allowed.ts';
import { AJV_OPTIONS, ajvPlugin } from './validation.ts';
import { registerCheckoutPageRoutes } from '../checkout/checkout-page-routes.ts';
import { registerCheckoutRoutes } from '../checkout/checkout-routes.ts';
import { registerBrowserRoutes } from '../checkout/browser-routes.ts';
import { registerHealthRoutes } from '../health/health-routes.ts';
import { registerWebhookRoutes } from '../webhooks/webhook-routes.ts';
import { registerEventRoutes } from '../events/event-routes.ts';
import { registerBalanceRoutes } from '../ledger/balance-routes.ts';
import { registerBankTransferRoutes } from '../payments/bank-transfer-routes.ts';
import { registerCardRoutes } from '../payments/card-routes.ts';
import { registerThreeDsPageRoutes } from '../payments/three-ds-page-routes.ts';
import { registerMobileMoneyRoutes } from '../payments/mobile-money-routes.ts';
import { registerPayoutRoutes } from '../payouts/payout-routes.ts';
import { registerSandboxRoutes } from '../sandbox/sandbox-routes.ts';
import { registerRefundRoutes } from '../refunds/refund-routes.ts';
import { registerCallbackRoutes } from '../callbacks/callback-routes.ts';
import { registerDashboardRoutes } from '../dashboard/dashboard-routes.ts';
import { registerHomeRoutes } from '../home/home-routes.ts';
import { registerPaymentLinkRoutes } from '../payment-links/payment-link-routes.ts';
import { registerPayPageRoutes } from '../payment-links/pay-page-routes.ts';
import { registerTestHelperRoutes } from '../test-helpers/test-helper-routes.ts';

export interface Server {
  app: App;
  inFlight: InFlight;
  /** Every route the application serves (not the 405 answers): what the API document must cover. */
  routes: RouteEntry[];
}

export async function buildServer(ctx: GatewayContext, logger: FastifyBaseLogger | false): Promise<Server> {
  const { config, database, lifecycle } = ctx;
  const responseHeaders = defaultResponseHeaders(config);
  const app = Fastify({
    loggerInstance: logger || undefined,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { connectionsCheckingInterval: timeoutCheckInterval(config) },
    // While shutting down, requests on connections still open are served (with Connection:
    // close), not refused: see Gateway.close.
    return503OnClosing: false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // Clients join base URLs and paths carelessly; `//payment` and `/payment/` mean `/payment`.
    // Parameters a little longer than any reference reach the handler, which answers 404.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, responseHeaders),
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id).headers(responseHeaders);
      sendError(reply, toApiError(error, request.log));
    },
    ajv: {
      customOptions: AJV_OPTIONS,
      plugins: [ajvPlugin],
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  app.addSchema(ErrorEnvelope);
  app.server.headersTimeout = config.headersTimeoutMs;
  limitConnections(app.server, config.maxConnections, app.log);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(responseHeaders);
    // The listener is closed: each client is told to close its connection after this answer.
    if (lifecycle.closing) reply.header('connection', 'close');
    done();
  });
  limitConnectionsPerAddress(app, config);
  const inFlight = trackInFlight(app);
  await shedWhenOverloaded(app, config, inFlight);
  registerJsonBodyParser(app);
  const rateLimits = await openRateLimits(config, app.log);
  app.addHook('onClose', rateLimits.close);
  registerAuthentication(app, { db: database.db, clock: ctx.clock }, rateLimits.byAddress);
  // preValidation, not onRequest or preHandler: the authentication hooks (registered just above,
  // so run first) have then found the principal, including a legacy `secret_key` from the body;
  // and requests that will fail validation are counted too.
  app.addHook('preValidation', rateLimits.byKey);
  // The request line is `info`: at a quieter level the hook would only build fields to discard.
  if (logger && REQUEST_LINE_LEVELS.has(logger.level)) app.addHook('onResponse', logRequestLine);
  app.setErrorHandler((error, request, reply) =>
    sendError(reply, toApiError(error as FastifyError | ApiError, request.log)),
  );
  app.setNotFoundHandler((_request, reply) => sendError(reply, new ApiError('routeNotFound')));

  await registerApiDocs(app, config);
  const routes = await registerMethodNotAllowed(app, async () => {
    registerMetrics(app, ctx);
    registerHealthRoutes(app, ctx);
    registerCheckoutRoutes(app, ctx);
    registerCheckoutPageRoutes(app, ctx);
    registerBrowserRoutes(app, ctx);
    registerWebhookRoutes(app, ctx);
    registerEventRoutes(app, ctx);
    registerMobileMoneyRoutes(app, ctx);
    registerBankTransferRoutes(app, ctx);
    registerPayoutRoutes(app, ctx);
    registerBalanceRoutes(app, ctx);
    registerSandboxRoutes(app, ctx);
    registerRefundRoutes(app, ctx);
    registerCardRoutes(app, ctx);
    registerThreeDsPageRoutes(app, ctx);
    registerCallbackRoutes(app, ctx);
    registerPaymentLinkRoutes(app, ctx);
    registerPayPageRoutes(app, ctx);
    registerTestHelperRoutes(app, ctx);
    registerDashboardRoutes(app, ctx);
    registerHomeRoutes(app, ctx);
  });
  return { app, inFlight, routes };
}

/**
 * How often Node looks for requests past HEADERS_TIMEOUT or REQUEST_TIMEOUT. It looks every 30 s
 * by default, whatever the timeouts: a client dribbling its headers then held a connection for
 * up to 30 s more than it was given. A tenth of the shorter timeout cuts it off at most 10 %
 * late; the check walks only the connections with a request under way.
 */
function timeoutCheckInterval(config: Config): number {
  return Math.min(30_000, Math.max(100, Math.round(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 10)));
}

const DROP_WARNING_INTERVAL_MS = 10_000;

/**
 * Caps the connections open at once: each holds memory and a file descriptor, and slow clients
 * could otherwise open them until the process runs out of either. Node closes a connection that
 * arrives over the cap at once; the operator is told, at most every 10 s.
 */
function limitConnections(server: http.Server, maxConnections: number, log: FastifyBaseLogger): void {
  server.maxConnections = maxConnections;
  let warnedAt = -Infinity;
  server.on('drop', () => {
    if (performance.now() - warnedAt < DROP_WARNING_INTERVAL_MS) return;
    warnedAt = performance.now();
    log.warn({ maxConnections }, 'connections over MAX_CONNECTIONS are being closed');
  });
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
