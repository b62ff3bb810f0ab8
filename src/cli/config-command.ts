import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs } from './args.ts';
import { print, printJson } from './output.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';

const MASK = '****';

/** A URL setting with its secrets masked; null when unset. */
const maskedUrl = (url: string | null) => (url === null ? null : maskUrlSecrets(url));

const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * A duration as the README writes it (`250ms`, `5s`, `24h`, `7d`): the largest whole unit, but a
 * single day as `24h`. Reads back to the same milliseconds.
 */
function duration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of UNITS) {
    if (ms % size === 0 && !(unit === 'd' && ms === size)) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

const masked = (secret: string | null) => (secret === null ? null : MASK);
const schedule = (delays: number[]) => delays.map(duration).join(',');
const percent = (basisPoints: number) => String(basisPoints / 100);
const onOff = (value: boolean) => (value ? 'on' : 'off');

/**
 * Every setting under the environment variable that sets it, in the README's order, shown as one
 * would write it there. A value is null when the variable is unset and has no default.
 */
const SETTINGS: { [Field in keyof Config]: [variable: string, show: (value: Config[Field]) => string | null] } = {
  host: ['HOST', String],
  port: ['PORT', String],
  publicBaseUrl: ['PUBLIC_BASE_URL', maskedUrl],
  databaseUrl: ['DATABASE_URL', (url) => (url.startsWith('sqlite:') ? url : maskedUrl(url))],
  databaseConnectTimeoutMs: ['DATABASE_CONNECT_TIMEOUT', duration],
  databaseQueryTimeoutMs: ['DATABASE_QUERY_TIMEOUT', duration],
  logLevel: ['LOG_LEVEL', String],
  bodyLimitBytes: ['BODY_LIMIT', String],
  defaultFeeBasisPoints: ['DEFAULT_FEE_PERCENT', percent],
  checkoutTtlMs: ['CHECKOUT_TTL', duration],
  checkoutMaxFailedAttempts: ['CHECKOUT_MAX_FAILED_ATTEMPTS', String],
  sandboxMobileDelayMs: ['SANDBOX_MOBILE_DELAY', duration],
  workers: ['WORKERS', onOff],
  workerIntervalMs: ['WORKER_INTERVAL', duration],
  webhookTimeoutMs: ['WEBHOOK_TIMEOUT', duration],
  webhookRetryScheduleMs: ['WEBHOOK_RETRY_SCHEDULE', schedule],
  webhookAllowLoopback: ['WEBHOOK_ALLOW_LOOPBACK', onOff],
  smtpUrl: ['SMTP_URL', maskedUrl],
  emailFrom: ['EMAIL_FROM', String],
  outboxDir: ['OUTBOX_DIR', String],
  testReceiptsToCustomers: ['TEST_RECEIPTS_TO_CUSTOMERS', onOff],
  emailRetryScheduleMs: ['EMAIL_RETRY_SCHEDULE', schedule],
  payoutFeeBasisPoints: ['PAYOUT_FEE_PERCENT', percent],
  settlementIntervalMs: ['SETTLEMENT_INTERVAL', duration],
  metricsToken: ['METRICS_TOKEN', masked],
  rateLimitPerSecond: ['RATE_LIMIT_PER_SECOND', String],
  rateLimitBurst: ['RATE_LIMIT_BURST', String],
  rateLimitPerAddressPerSecond: ['RATE_LIMIT_PER_ADDRESS_PER_SECOND', String],
  rateLimitAddressBurst: ['RATE_LIMIT_ADDRESS_BURST', String],
  clientAddressHeader: ['CLIENT_ADDRESS_HEADER', (header) => header],
  redisUrl: ['REDIS_URL', maskedUrl],
  requestTimeoutMs: ['REQUEST_TIMEOUT', duration],
  headersTimeoutMs: ['HEADERS_TIMEOUT', duration],
  keepAliveTimeoutMs: ['KEEP_ALIVE_TIMEOUT', duration],
  maxConnections: ['MAX_CONNECTIONS', String],
  maxConnectionsPerAddress: ['MAX_CONNECTIONS_PER_ADDRESS', String],
  shutdownGraceMs: ['SHUTDOWN_GRACE', duration],
  timeZone: ['TIMEZONE', String],
  liveRoutes: [
    'LIVE_ROUTES',
    (routes) =>
      Object.entries(routes)
        .map(([channel, connector]) => `${channel}:${connector}`)
        .join(',') || null,
  ],
  connectorTimeoutMs: ['CONNECTOR_TIMEOUT', duration],
  liveSyncFirstMs: ['LIVE_SYNC_FIRST', duration],
  liveSyncMaxMs: ['LIVE_SYNC_MAX', duration],
  liveReviewAfterMs: ['LIVE_REVIEW_AFTER', duration],
  airtelApiUrl: ['AIRTEL_API_URL', maskedUrl],
  airtelClientId: ['AIRTEL_CLIENT_ID', (id) => id],
  airtelClientSecret: ['AIRTEL_CLIENT_SECRET', masked],
  airtelCountry: ['AIRTEL_COUNTRY', String],
  airtelCurrency: ['AIRTEL_CURRENCY', String],
  airtelDisbursementPin: ['AIRTEL_DISBURSEMENT_PIN', masked],
  airtelPublicKey: ['AIRTEL_PUBLIC_KEY', (pem) => (pem === null ? null : '(PEM public key)')],
  airtelCallbackSecret: ['AIRTEL_CALLBACK_SECRET', masked],
  paychanguUpstreamUrl: ['PAYCHANGU_UPSTREAM_URL', maskedUrl],
  paychanguUpstreamSecretKey: ['PAYCHANGU_UPSTREAM_SECRET_KEY', masked],
  paychanguUpstreamWebhookSecret: ['PAYCHANGU_UPSTREAM_WEBHOOK_SECRET', masked],
};

function shown<Field extends keyof Config>(config: Config, field: Field): [string, string | null] {
  const [variable, show] = SETTINGS[field];
  return [variable, show(config[field])];
}

/** The effective configuration as variable → value, secrets masked. */
function effectiveSettings(config: Config): Record<string, string | null> {
  return Object.fromEntries((Object.keys(SETTINGS) as Array<keyof Config>).map((field) => shown(config, field)));
}

/** `lipira config`: the effective configuration after defaults and checks, by environment variable, secrets masked. */
export async function configCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, [], ['json']);
  noMorePositionals(args, 0);
  const settings = effectiveSettings(config);
  if (args.options.has('json')) printJson(settings);
  else for (const [variable, value] of Object.entries(settings)) print(`${variable.padEnd(34)} ${value ?? '(unset)'}`);
  return 0;
}
