import path from 'node:path';
import { parseDuration } from './shared/time.ts';

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
  /** How often the background workers look for due work. */
  workerIntervalMs: number;
  webhookTimeoutMs: number;
  /** Delays after the first try, one per retry (contract §9). */
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
  /** On SIGTERM, how long to keep serving (with Connection: close) before closing the listener. */
  shutdownGraceMs: number;
  /** The IANA time zone of times shown to people: receipts, pages and emails. */
  timeZone: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
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
    shutdownGraceMs: durationSetting(env, 'SHUTDOWN_GRACE', '1s', true),
    timeZone: timeZoneSetting(env, 'TIMEZONE', 'Africa/Blantyre'),
  };
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
  if (ms === null || (ms === 0 && !zeroAllowed)) throw new ConfigError(name, `must be a duration such as 30s, 15m, 24h or 7d (got "${raw}")`);
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
  throw new ConfigError('DATABASE_URL', `must start with "sqlite:" or "postgres://" (got "${value}")`);
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
  if (delays.some((ms) => ms === null)) throw new ConfigError(name, `must be a comma-separated list of durations such as 5s,5m,30m (got "${raw}")`);
  return delays as number[];
}

/** `on` or `off` (off when unset): the switches that loosen a safe default. */
function switchSetting(env: Env, name: string): boolean {
  const raw = env[name]?.trim() || 'off';
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
  if (!/^smtps?:\/\/[^/]+/.test(value)) throw new ConfigError('SMTP_URL', 'must look like smtp://user:pass@host:587 or smtps://host:465');
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
  if (!/^[A-Za-z0-9-]+$/.test(value)) throw new ConfigError(name, `must be a header name such as x-forwarded-for (got "${value}")`);
  return value.toLowerCase();
}
