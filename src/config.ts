import path from 'node:path';
import { LIVE_CHANNELS, type LiveChannel } from './connectors/live-provider.ts';
import { parseDuration } from './shared/time.ts';
import { maskUrlSecrets } from './shared/url-secrets.ts';

/** Every setting Lipira reads, parsed and checked once at start. */
export interface Config {
  host: string;
  port: number;
  publicBaseUrl: string;
  databaseUrl: string;
  /** PostgreSQL, while serving: longest wait for a connection, and for a statement's answer. */
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  logLevel: string;
  bodyLimitBytes: number;
  defaultFeeBasisPoints: number;
  checkoutTtlMs: number;
  checkoutMaxFailedAttempts: number;
  sandboxMobileDelayMs: number;
  /**
   * Whether this process runs the background workers (settling charges, webhooks, emails,
   * settlement); off for a process that only serves requests beside others that run them.
   */
  workers: boolean;
  /** How often the background workers look for due work nobody told them of: a safety net. */
  workerIntervalMs: number;
  webhookTimeoutMs: number;
  /** Delays after the first try, one per retry (docs/integrate/api-reference.md#delivery-and-retries). */
  webhookRetryScheduleMs: number[];
  /** Test-mode webhooks may go to loopback addresses (local development); live ones never to a non-public address. */
  webhookAllowLoopback: boolean;
  /** `smtp://…` or `smtps://…`; null writes each message as an .eml file to `outboxDir`. */
  smtpUrl: string | null;
  emailFrom: string;
  outboxDir: string;
  emailRetryScheduleMs: number[];
  /** Test-mode customer receipts go to the customer's address too, instead of only to the outbox folder. */
  testReceiptsToCustomers: boolean;
  payoutFeeBasisPoints: number;
  /** How often collected money moves to merchants' main balances. */
  settlementIntervalMs: number;
  /** When set, `/metrics` wants `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** Sustained requests per second allowed per secret key, and the burst above it. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Sustained requests per second, and the burst above it, per client address for requests without a valid key. */
  rateLimitPerAddressPerSecond: number;
  rateLimitAddressBurst: number;
  /** The header (lowercase) a trusted proxy puts the client's address into, last; null: the connection's address. */
  clientAddressHeader: string | null;
  /** Shares rate-limit counters between processes; in memory when null. */
  redisUrl: string | null;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Most connections open at once; further ones are closed as they arrive. */
  maxConnections: number;
  /** Most connections one client address (IPv6: its /64) holds open at once, so one cannot take them all. */
  maxConnectionsPerAddress: number;
  /** On SIGTERM, how long to keep serving (with Connection: close) before closing the listener. */
  shutdownGraceMs: number;
  /** The IANA time zone of times shown to people: receipts, pages and emails. */
  timeZone: string;
  /** Which connector serves each live channel; a channel missing here is refused in live mode. */
  liveRoutes: LiveRoutes;
  /** How long a connector may take to answer one request before its outcome counts as unknown. */
  connectorTimeoutMs: number;
  /** A pending live charge is asked about first after `liveSyncFirstMs`, then twice as long each time up to `liveSyncMaxMs`. */
  liveSyncFirstMs: number;
  liveSyncMaxMs: number;
  /** A live charge, refund or payout with no final answer for this long is flagged for review. */
  liveReviewAfterMs: number;
  airtelApiUrl: string;
  airtelClientId: string | null;
  airtelClientSecret: string | null;
  airtelCountry: string;
  airtelCurrency: string;
  airtelDisbursementPin: string | null;
  /** Airtel's RSA public key (PEM), with which the disbursement PIN is encrypted. */
  airtelPublicKey: string | null;
  airtelCallbackSecret: string | null;
  paychanguUpstreamUrl: string;
  paychanguUpstreamSecretKey: string | null;
  paychanguUpstreamWebhookSecret: string | null;
}

export type LiveRoutes = Partial<Record<LiveChannel, ConnectorName>>;

/** The connectors Lipira has, and the channels each can serve. */
export const CONNECTOR_CHANNELS = {
  airtel: ['airtel', 'payout'],
  paychangu: ['tnm', 'airtel', 'card', 'bank', 'payout'],
} as const satisfies Record<string, readonly LiveChannel[]>;
export type ConnectorName = keyof typeof CONNECTOR_CHANNELS;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST?.trim() || '127.0.0.1';
  const port = integerSetting(env, 'PORT', 8000, 0, 65535);
  const publicBaseUrl = parsePublicBaseUrl(env.PUBLIC_BASE_URL, host, port);
  const databaseUrl = parseDatabaseUrl(env.DATABASE_URL);
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const bodyLimitBytes = integerSetting(env, 'BODY_LIMIT', 65536, 1024, 16 * 1024 * 1024);
  const defaultFeeBasisPoints = feePercentSetting(env, 'DEFAULT_FEE_PERCENT', '3');
  const checkoutTtlMs = durationSetting(env, 'CHECKOUT_TTL', '24h');
  const checkoutMaxFailedAttempts = integerSetting(env, 'CHECKOUT_MAX_FAILED_ATTEMPTS', 3, 1, 20);
  const sandboxMobileDelayMs = durationSetting(env, 'SANDBOX_MOBILE_DELAY', '3s', true);
  return {
    host,
    port,
    publicBaseUrl,
    databaseUrl,
    databaseConnectTimeoutMs: durationSetting(env, 'DATABASE_CONNECT_TIMEOUT', '5s'),
    databaseQueryTimeoutMs: durationSetting(env, 'DATABASE_QUERY_TIMEOUT', '10s'),
    logLevel,
    bodyLimitBytes,
    defaultFeeBasisPoints,
    checkoutTtlMs,
    checkoutMaxFailedAttempts,
    sandboxMobileDelayMs,
    workers: onOffSetting(env, 'WORKERS', 'on'),
    workerIntervalMs: durationSetting(env, 'WORKER_INTERVAL', '250ms'),
    webhookTimeoutMs: durationSetting(env, 'WEBHOOK_TIMEOUT', '15s'),
    webhookRetryScheduleMs: scheduleSetting(env, 'WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
    webhookAllowLoopback: switchSetting(env, 'WEBHOOK_ALLOW_LOOPBACK'),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    emailFrom: env.EMAIL_FROM?.trim() || 'Lipira <receipts@lipira.localhost>',
    outboxDir: path.resolve(env.OUTBOX_DIR?.trim() || './data/outbox'),
    emailRetryScheduleMs: scheduleSetting(env, 'EMAIL_RETRY_SCHEDULE', '5s,1m,5m,30m,2h,5h'),
    testReceiptsToCustomers: switchSetting(env, 'TEST_RECEIPTS_TO_CUSTOMERS'),
    payoutFeeBasisPoints: feePercentSetting(env, 'PAYOUT_FEE_PERCENT', '1'),
    settlementIntervalMs: durationSetting(env, 'SETTLEMENT_INTERVAL', '24h'),
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    rateLimitPerSecond: integerSetting(env, 'RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
    rateLimitBurst: integerSetting(env, 'RATE_LIMIT_BURST', 200, 1, 1_000_000),
    rateLimitPerAddressPerSecond: integerSetting(env, 'RATE_LIMIT_PER_ADDRESS_PER_SECOND', 100, 1, 1_000_000),
    rateLimitAddressBurst: integerSetting(env, 'RATE_LIMIT_ADDRESS_BURST', 400, 1, 1_000_000),
    clientAddressHeader: parseHeaderName(env, 'CLIENT_ADDRESS_HEADER'),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    requestTimeoutMs: durationSetting(env, 'REQUEST_TIMEOUT', '30s'),
    headersTimeoutMs: durationSetting(env, 'HEADERS_TIMEOUT', '10s'),
    keepAliveTimeoutMs: durationSetting(env, 'KEEP_ALIVE_TIMEOUT', '72s'),
    maxConnections: integerSetting(env, 'MAX_CONNECTIONS', 2048, 1, 1_000_000),
    maxConnectionsPerAddress: integerSetting(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 1, 1_000_000),
    shutdownGraceMs: durationSetting(env, 'SHUTDOWN_GRACE', '1s', true),
    timeZone: timeZoneSetting(env, 'TIMEZONE', 'Africa/Blantyre'),
    ...liveSettings(env),
  };
}

type LiveSettings = Pick<
  Config,
  | 'liveRoutes'
  | 'connectorTimeoutMs'
  | 'liveSyncFirstMs'
  | 'liveSyncMaxMs'
  | 'liveReviewAfterMs'
  | 'airtelApiUrl'
  | 'airtelClientId'
  | 'airtelClientSecret'
  | 'airtelCountry'
  | 'airtelCurrency'
  | 'airtelDisbursementPin'
  | 'airtelPublicKey'
  | 'airtelCallbackSecret'
  | 'paychanguUpstreamUrl'
  | 'paychanguUpstreamSecretKey'
  | 'paychanguUpstreamWebhookSecret'
>;

/** The live connectors and their credentials: a route to a connector whose credentials are missing refuses to start. */
function liveSettings(env: Env): LiveSettings {
  const text = (name: string) => env[name]?.trim() || null;
  const settings: LiveSettings = {
    liveRoutes: parseLiveRoutes(env.LIVE_ROUTES),
    connectorTimeoutMs: durationSetting(env, 'CONNECTOR_TIMEOUT', '30s'),
    liveSyncFirstMs: durationSetting(env, 'LIVE_SYNC_FIRST', '10s'),
    liveSyncMaxMs: durationSetting(env, 'LIVE_SYNC_MAX', '10m'),
    liveReviewAfterMs: durationSetting(env, 'LIVE_REVIEW_AFTER', '30m'),
    airtelApiUrl: httpUrlSetting(env, 'AIRTEL_API_URL', 'https://openapi.airtel.africa'),
    airtelClientId: text('AIRTEL_CLIENT_ID'),
    airtelClientSecret: text('AIRTEL_CLIENT_SECRET'),
    airtelCountry: env.AIRTEL_COUNTRY?.trim() || 'MW',
    airtelCurrency: env.AIRTEL_CURRENCY?.trim() || 'MWK',
    airtelDisbursementPin: text('AIRTEL_DISBURSEMENT_PIN'),
    airtelPublicKey: text('AIRTEL_PUBLIC_KEY'),
    airtelCallbackSecret: text('AIRTEL_CALLBACK_SECRET'),
    paychanguUpstreamUrl: httpUrlSetting(env, 'PAYCHANGU_UPSTREAM_URL', 'https://api.paychangu.com'),
    paychanguUpstreamSecretKey: text('PAYCHANGU_UPSTREAM_SECRET_KEY'),
    paychanguUpstreamWebhookSecret: text('PAYCHANGU_UPSTREAM_WEBHOOK_SECRET'),
  };
  if (settings.liveSyncMaxMs < settings.liveSyncFirstMs)
    throw new ConfigError('LIVE_SYNC_MAX', 'must not be shorter than LIVE_SYNC_FIRST');
  const used = new Set(Object.values(settings.liveRoutes));
  const need = (variable: string, value: string | null, why: string) => {
    if (value === null) throw new ConfigError(variable, `must be set: ${why}`);
  };
  if (used.has('airtel')) {
    need('AIRTEL_CLIENT_ID', settings.airtelClientId, 'LIVE_ROUTES uses the airtel connector');
    need('AIRTEL_CLIENT_SECRET', settings.airtelClientSecret, 'LIVE_ROUTES uses the airtel connector');
  }
  if (settings.liveRoutes.payout === 'airtel') {
    need('AIRTEL_DISBURSEMENT_PIN', settings.airtelDisbursementPin, 'payouts go through Airtel (payout:airtel)');
    need(
      'AIRTEL_PUBLIC_KEY',
      settings.airtelPublicKey,
      'payouts go through Airtel (payout:airtel), whose PIN is encrypted with it',
    );
  }
  if (settings.airtelPublicKey !== null && !/^-----BEGIN (RSA )?PUBLIC KEY-----/.test(settings.airtelPublicKey)) {
    throw new ConfigError('AIRTEL_PUBLIC_KEY', 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)');
  }
  if (used.has('paychangu'))
    need(
      'PAYCHANGU_UPSTREAM_SECRET_KEY',
      settings.paychanguUpstreamSecretKey,
      'LIVE_ROUTES uses the paychangu connector',
    );
  return settings;
}

/** `channel:connector` pairs, comma-separated (`airtel:airtel,tnm:paychangu`); empty: no live channel. */
function parseLiveRoutes(raw: string | undefined): LiveRoutes {
  const routes: LiveRoutes = {};
  for (const pair of (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [channel = '', connector = '', extra] = pair.split(':').map((part) => part.trim());
    if (extra !== undefined || !isLiveChannel(channel) || !isConnectorName(connector)) {
      throw new ConfigError(
        'LIVE_ROUTES',
        `must be channel:connector pairs, channels ${LIVE_CHANNELS.join(', ')}, connectors ${Object.keys(CONNECTOR_CHANNELS).join(', ')} (got "${pair}")`,
      );
    }
    if (routes[channel]) throw new ConfigError('LIVE_ROUTES', `names the ${channel} channel twice`);
    if (!(CONNECTOR_CHANNELS[connector] as readonly LiveChannel[]).includes(channel)) {
      throw new ConfigError(
        'LIVE_ROUTES',
        `routes ${channel} to ${connector}, which serves only ${CONNECTOR_CHANNELS[connector].join(', ')}`,
      );
    }
    routes[channel] = connector;
  }
  return routes;
}

const isLiveChannel = (name: string): name is LiveChannel => (LIVE_CHANNELS as readonly string[]).includes(name);
const isConnectorName = (name: string): name is ConnectorName => Object.hasOwn(CONNECTOR_CHANNELS, name);

function httpUrlSetting(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${maskUrlSecrets(raw)}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, `must use http or https (got "${maskUrlSecrets(raw)}")`);
  // fetch refuses such a URL, and its error repeats it, password and all, into the charge's notes.
  if (url.username || url.password)
    throw new ConfigError(name, 'must not carry a user name or password: give credentials in their own settings');
  return raw.replace(/\/+$/, '');
}

function integerSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function durationSetting(env: Env, name: string, fallback: string, zeroAllowed = false): number {
  const raw = env[name]?.trim() || fallback;
  const ms = parseDuration(raw);
  if (ms === null || (ms === 0 && !zeroAllowed))
    throw new ConfigError(name, `must be a duration such as 30s, 15m, 24h or 7d (got "${raw}")`);
  return ms;
}

function parsePublicBaseUrl(raw: string | undefined, host: string, port: number): string {
  const value = raw?.trim();
  if (!value) return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_BASE_URL', `must use http or https (got "${value}")`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** `sqlite:PATH` (relative paths resolve against the working directory) or a postgres URL. */
export function parseDatabaseUrl(raw: string | undefined): string {
  const value = raw?.trim() || 'sqlite:./data/lipira.db';
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length);
    if (!file) throw new ConfigError('DATABASE_URL', 'needs a file path after "sqlite:"');
    return `sqlite:${path.resolve(file)}`;
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      const url = new URL(value);
      if (url.pathname.length <= 1) throw new Error('no database name');
    } catch {
      throw new ConfigError('DATABASE_URL', 'must be postgres://USER@HOST:PORT/DATABASE');
    }
    return value;
  }
  throw new ConfigError('DATABASE_URL', `must start with "sqlite:" or "postgres://" (got "${maskUrlSecrets(value)}")`);
}

/** Percent with at most two decimals, from 0 to 100, stored as basis points. */
export function parseFeePercent(raw: string): number | null {
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(raw)) return null;
  const basisPoints = Math.round(Number(raw) * 100);
  return basisPoints <= 10_000 ? basisPoints : null;
}

function feePercentSetting(env: Env, name: string, fallback: string): number {
  const value = env[name]?.trim() || fallback;
  const basisPoints = parseFeePercent(value);
  if (basisPoints === null) throw new ConfigError(name, `must be a percentage from 0 to 100 (got "${value}")`);
  return basisPoints;
}

/** A comma-separated list of delays, e.g. `5s,5m,30m`: when each retry follows the first try. */
function scheduleSetting(env: Env, name: string, fallback: string): number[] {
  const raw = env[name]?.trim() || fallback;
  const delays = raw.split(',').map((part) => parseDuration(part.trim()));
  if (delays.some((ms) => ms === null))
    throw new ConfigError(name, `must be a comma-separated list of durations such as 5s,5m,30m (got "${raw}")`);
  return delays as number[];
}

/** `on` or `off` (off when unset): the switches that loosen a safe default. */
function switchSetting(env: Env, name: string): boolean {
  return onOffSetting(env, name, 'off');
}

function onOffSetting(env: Env, name: string, fallback: 'on' | 'off'): boolean {
  const raw = env[name]?.trim() || fallback;
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(name, `must be on or off (got "${raw}")`);
  return raw === 'on';
}

/** An IANA time zone this Node knows (`Africa/Blantyre`, `UTC`), in its canonical spelling. */
function timeZoneSetting(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(name, `must be a time zone such as Africa/Blantyre or UTC (got "${value}")`);
  }
}

function parseSmtpUrl(raw: string | undefined): string | null {
  const value = raw?.trim();
  if (!value) return null;
  if (!/^smtps?:\/\/[^/]+/.test(value))
    throw new ConfigError('SMTP_URL', 'must look like smtp://user:pass@host:587 or smtps://host:465');
  return value;
}

function parseRedisUrl(raw: string | undefined): string | null {
  const value = raw?.trim();
  if (!value) return null;
  if (!/^rediss?:\/\/[^/]+/.test(value)) throw new ConfigError('REDIS_URL', 'must look like redis://127.0.0.1:6379');
  return value;
}

function parseHeaderName(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  if (!value) return null;
  if (!/^[A-Za-z0-9-]+$/.test(value))
    throw new ConfigError(name, `must be a header name such as x-forwarded-for (got "${value}")`);
  return value.toLowerCase();
}
