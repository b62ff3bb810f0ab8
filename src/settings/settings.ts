import {
  databaseUrl,
  duration,
  feePercent,
  folder,
  headerName,
  httpUrl,
  immediateOrDuration,
  integer,
  onOff,
  oneOf,
  optionalFolder,
  optionalText,
  pemPublicKey,
  publicBaseUrl,
  schedule,
  serverUrl,
  text,
  timeZone,
  type Kind,
} from './kinds.ts';
import { liveRoutes } from './live-routes.ts';

/** One environment variable Lipira reads: how it is parsed and shown, its default, what it means. */
export interface Setting<Field extends string = string, T = unknown> {
  /** The property of `Config` (src/config.ts) that holds the parsed value. */
  field: Field;
  variable: string;
  kind: Kind<T>;
  /** The value taken when the variable is unset or empty, as one would write it; null: none. */
  default: string | null;
  /** How docs/operate/configuration.md writes a default that the kind works out from other settings. */
  defaultShown?: string;
  /** `lipira config` shows `****` instead of its value. */
  secret?: true;
  /** The settings reference's words for it (Markdown). */
  meaning: string;
}

const setting = <const Field extends string, T>(field: Field, entry: Omit<Setting<Field, T>, 'field'>) => ({
  field,
  ...entry,
});

/** The most processes `lipira serve` runs on one port; more than a machine has cores only contend. */
export const MOST_SERVE_PROCESSES = 64;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Every setting, in the order `lipira config` and docs/operate/configuration.md list them and `loadConfig`
 * parses them (a setting may read those above it). docs/operate/configuration.md is made from this table by
 * `npm run docs:settings`.
 */
export const SETTINGS = [
  setting('host', {
    variable: 'HOST',
    kind: text,
    default: '127.0.0.1',
    meaning: 'Address the HTTP server listens on.',
  }),
  setting('port', {
    variable: 'PORT',
    kind: integer(0, 65535),
    default: '8000',
    meaning: 'TCP port the HTTP server listens on.',
  }),
  setting('webConcurrency', {
    variable: 'WEB_CONCURRENCY',
    kind: integer(1, MOST_SERVE_PROCESSES),
    default: '1',
    meaning:
      '`lipira serve`: how many processes serve on the one port (`node:cluster`), each a whole gateway with its background workers; `--workers N` wins over it. More than 1 needs PostgreSQL: on SQLite `lipira serve` refuses (docs/operate/deployment.md, Several processes).',
  }),
  setting('publicBaseUrl', {
    variable: 'PUBLIC_BASE_URL',
    kind: publicBaseUrl,
    default: null,
    defaultShown: 'http://HOST:PORT',
    meaning:
      'Public origin used in `checkout_url` and redirects. With `https://`, every answer carries `Strict-Transport-Security: max-age=31536000` (docs/operate/deployment.md, HTTPS and headers).',
  }),
  setting('databaseUrl', {
    variable: 'DATABASE_URL',
    kind: databaseUrl,
    default: 'sqlite:./data/lipira.db',
    meaning:
      '`sqlite:PATH` (relative to the working directory, or absolute) or `postgres://USER@HOST:PORT/DB` (the database is created if missing). Migrations run on start.',
  }),
  setting('databaseConnectTimeoutMs', {
    variable: 'DATABASE_CONNECT_TIMEOUT',
    kind: duration(),
    default: '5s',
    meaning:
      'PostgreSQL, `lipira serve`: longest a request waits for a database connection (a free one in the pool, or a new one); then it is answered 503.',
  }),
  setting('databaseQueryTimeoutMs', {
    variable: 'DATABASE_QUERY_TIMEOUT',
    kind: duration(),
    default: '10s',
    meaning:
      'PostgreSQL, `lipira serve`: longest a statement may run (the migrations at start too: run `lipira migrate` first for a long one) and the server keeps a transaction of ours open with no statement coming; an answer that never comes is given up 1 s later, with a 503.',
  }),
  setting('databaseListenUrl', {
    variable: 'DATABASE_LISTEN_URL',
    kind: serverUrl(/^postgres(ql)?:\/\/[^/]+\/[^/?]+/, 'postgres://USER@HOST:PORT/DATABASE'),
    default: null,
    meaning:
      'PostgreSQL: where the background workers LISTEN for new work, on one connection held open (unset: `DATABASE_URL`). Behind a pooler in transaction mode (PgBouncer), point it at the server itself, past the pooler: a LISTEN belongs to a session, which such a pooler does not keep (docs/operate/deployment.md, A connection pooler).',
  }),
  setting('databaseNamedStatements', {
    variable: 'DATABASE_NAMED_STATEMENTS',
    kind: onOff,
    default: 'on',
    meaning:
      "PostgreSQL: the hot reads are sent as named prepared statements, parsed and planned once per connection. `off` behind a pooler in transaction mode that does not track them (PgBouncer before 1.21, or without `max_prepared_statements`): it would hand a statement's name to a server connection that never saw it.",
  }),
  setting('backupDir', {
    variable: 'BACKUP_DIR',
    kind: optionalFolder,
    default: null,
    meaning:
      "Where the gateway keeps rotating backups of its SQLite database: every `BACKUP_INTERVAL` a consistent copy taken while it serves, checked as `lipira backup` checks one, named `lipira-backup-<UTC time>.db`. Unset: no scheduled backups. SQLite only: on PostgreSQL the start is refused, since its backups are the server's (`pg_dump`, WAL archiving: docs/operate/backups.md).",
  }),
  setting('backupIntervalMs', {
    variable: 'BACKUP_INTERVAL',
    kind: duration(),
    default: '6h',
    meaning:
      'How often the gateway takes a backup into `BACKUP_DIR`. `/readyz` warns, and `lipira_backup_age_seconds` shows, when the last good one is more than twice this old.',
  }),
  setting('backupKeep', {
    variable: 'BACKUP_KEEP',
    kind: integer(1, 10_000),
    default: '8',
    meaning: 'How many backups `BACKUP_DIR` keeps: after each good one, the oldest beyond this many are removed.',
  }),
  setting('logLevel', {
    variable: 'LOG_LEVEL',
    kind: oneOf(LOG_LEVELS),
    default: 'info',
    meaning:
      'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`. At `info` and below every request is logged in one line (route, status, latency, merchant, request id); at `warn` only what goes wrong.',
  }),
  setting('bodyLimitBytes', {
    variable: 'BODY_LIMIT',
    kind: integer(1024, 16 * 1024 * 1024),
    default: '65536',
    meaning: 'Largest request body in bytes; larger gets `413`.',
  }),
  setting('defaultFeeBasisPoints', {
    variable: 'DEFAULT_FEE_PERCENT',
    kind: feePercent,
    default: '3',
    meaning: 'Fee percentage given to new merchants (0–100, two decimals at most).',
  }),
  setting('checkoutTtlMs', {
    variable: 'CHECKOUT_TTL',
    kind: duration(),
    default: '24h',
    meaning: 'How long a checkout session stays payable (`30m`, `24h`, `7d`, …); then it is `failed`.',
  }),
  setting('checkoutMaxFailedAttempts', {
    variable: 'CHECKOUT_MAX_FAILED_ATTEMPTS',
    kind: integer(1, 20),
    default: '3',
    meaning: 'The failed attempt that ends a session (1–20).',
  }),
  setting('sandboxMobileDelayMs', {
    variable: 'SANDBOX_MOBILE_DELAY',
    kind: duration(true),
    default: '3s',
    meaning:
      'How long a test-mode mobile money payment (or bank payout) waits before it completes (`0`, `500ms`, `3s`).',
  }),
  setting('workers', {
    variable: 'WORKERS',
    kind: onOff,
    default: 'on',
    meaning:
      'Whether this process runs the background workers (settling charges, webhooks, emails, settlement). `off` for processes that only serve requests beside others that run them.',
  }),
  setting('workerIntervalMs', {
    variable: 'WORKER_INTERVAL',
    kind: duration(),
    default: '250ms',
    meaning:
      "How often the background workers look for due work they were not told of. Each is woken as its work is written: on SQLite by this process's writes, on PostgreSQL by any process's commits (LISTEN/NOTIFY), so the interval is a safety net (work written to a SQLite file by another process, a lost notification).",
  }),
  setting('webhookTimeoutMs', {
    variable: 'WEBHOOK_TIMEOUT',
    kind: duration(),
    default: '15s',
    meaning: 'How long one webhook try may take.',
  }),
  setting('webhookRetryScheduleMs', {
    variable: 'WEBHOOK_RETRY_SCHEDULE',
    kind: schedule,
    default: '5s,5m,30m,2h,5h,10h,10h',
    meaning: 'Waits between webhook tries; after the last the delivery is `failed`.',
  }),
  setting('webhookAllowLoopback', {
    variable: 'WEBHOOK_ALLOW_LOOPBACK',
    kind: onOff,
    default: 'off',
    meaning:
      '`on` lets **test-mode** webhooks go to loopback (127.0.0.0/8, `::1`, `localhost`) for local development; their answers are not stored. Live webhooks never go to a non-public address.',
  }),
  setting('eventsStreamLive', {
    variable: 'EVENTS_STREAM_LIVE',
    kind: onOff,
    default: 'off',
    meaning:
      "`on` lets a **live** secret key open `GET /events/stream` (what `lipira listen` reads). Off, only test keys may: a listening laptop should not carry a live key's events, whose payloads name real customers.",
  }),
  setting('smtpUrl', {
    variable: 'SMTP_URL',
    kind: serverUrl(/^smtps?:\/\/[^/]+/, 'smtp://user:pass@host:587 or smtps://host:465'),
    default: null,
    meaning:
      '`smtp://user:pass@host:587` or `smtps://…` to send receipts by SMTP; unset writes `.eml` files to `OUTBOX_DIR`.',
  }),
  setting('emailFrom', {
    variable: 'EMAIL_FROM',
    kind: text,
    default: 'Lipira <receipts@lipira.localhost>',
    meaning: 'Sender of receipt emails.',
  }),
  setting('outboxDir', {
    variable: 'OUTBOX_DIR',
    kind: folder,
    default: './data/outbox',
    meaning:
      "Where receipts are written when no `SMTP_URL` is set, and test payments' customer receipts always (see `TEST_RECEIPTS_TO_CUSTOMERS`).",
  }),
  setting('testReceiptsToCustomers', {
    variable: 'TEST_RECEIPTS_TO_CUSTOMERS',
    kind: onOff,
    default: 'off',
    meaning:
      "`on` sends test payments' customer receipts to the customer's address like live ones; off, they are only written to `OUTBOX_DIR`.",
  }),
  setting('emailRetryScheduleMs', {
    variable: 'EMAIL_RETRY_SCHEDULE',
    kind: schedule,
    default: '5s,1m,5m,30m,2h,5h',
    meaning: 'Waits between tries when the SMTP server is unreachable.',
  }),
  setting('payoutFeeBasisPoints', {
    variable: 'PAYOUT_FEE_PERCENT',
    kind: feePercent,
    default: '1',
    meaning: 'Fee on payouts, reserved from the main balance with the amount (0–100).',
  }),
  setting('settlementIntervalMs', {
    variable: 'SETTLEMENT_INTERVAL',
    kind: duration(),
    default: '24h',
    meaning:
      "How often live collected money moves from collection to main balances (T+1). The dashboard's balance page shows when the next settlement runs.",
  }),
  setting('testSettlement', {
    variable: 'TEST_SETTLEMENT',
    kind: immediateOrDuration,
    default: 'immediate',
    meaning:
      '`immediate`: a test payment is credited straight to the main balance, settled in the transaction that records it, so payouts and refunds can be tried in the sandbox right after it. A duration (`10m`, `24h`): test collections wait in the collection balance and settle that often, as live ones do every `SETTLEMENT_INTERVAL`.',
  }),
  setting('refundReturnsFee', {
    variable: 'REFUND_RETURNS_FEE',
    kind: onOff,
    default: 'on',
    meaning:
      "`on`: a refund gives the merchant back the payment fee's share of what it refunds, rounded down to the minor unit, the last part of a payment refunded in parts the rest, so the parts return exactly the fee (docs/integrate/api-reference.md, Refunds); the merchant's balance pays the refund less that share. `off`: the fee is kept and the balance pays the whole refund.",
  }),
  setting('metricsToken', {
    variable: 'METRICS_TOKEN',
    kind: optionalText,
    default: null,
    secret: true,
    meaning: 'When set, `GET /metrics` needs `Authorization: Bearer <token>`.',
  }),
  setting('rateLimitPerSecond', {
    variable: 'RATE_LIMIT_PER_SECOND',
    kind: integer(1, 1_000_000),
    default: '100',
    meaning: 'Sustained requests per second allowed per secret key.',
  }),
  setting('rateLimitBurst', {
    variable: 'RATE_LIMIT_BURST',
    kind: integer(1, 1_000_000),
    default: '200',
    meaning: 'How many requests a key may make at once above the sustained rate.',
  }),
  setting('rateLimitPerAddressPerSecond', {
    variable: 'RATE_LIMIT_PER_ADDRESS_PER_SECOND',
    kind: integer(1, 1_000_000),
    default: '100',
    meaning:
      "Sustained requests per second allowed per client address for requests without a valid key (hosted pages, status polls, unknown keys). Generous: customers behind one carrier's NAT share an address, and a waiting page polls every second.",
  }),
  setting('rateLimitAddressBurst', {
    variable: 'RATE_LIMIT_ADDRESS_BURST',
    kind: integer(1, 1_000_000),
    default: '400',
    meaning: 'How many such requests an address may make at once above the sustained rate.',
  }),
  setting('clientAddressHeader', {
    variable: 'CLIENT_ADDRESS_HEADER',
    kind: headerName,
    default: null,
    meaning:
      "Behind a reverse proxy: the header it writes the client's address into (e.g. `x-forwarded-for`); the last entry, the one the proxy added, is the client. Unset: the connection's address. Set it only when every request comes through a proxy that adds to this header, or clients pick their own address.",
  }),
  setting('redisUrl', {
    variable: 'REDIS_URL',
    kind: serverUrl(/^rediss?:\/\/[^/]+/, 'redis://127.0.0.1:6379'),
    default: null,
    meaning: '`redis://host:6379`: share rate-limit counters between processes; in memory when unset.',
  }),
  setting('requestTimeoutMs', {
    variable: 'REQUEST_TIMEOUT',
    kind: duration(),
    default: '30s',
    meaning: 'Longest a request may take to arrive in full.',
  }),
  setting('headersTimeoutMs', {
    variable: 'HEADERS_TIMEOUT',
    kind: duration(),
    default: '10s',
    meaning: 'Longest a client may take to send its headers.',
  }),
  setting('keepAliveTimeoutMs', {
    variable: 'KEEP_ALIVE_TIMEOUT',
    kind: duration(),
    default: '72s',
    meaning: "How long an idle keep-alive connection stays open (above common load balancers' 60 s).",
  }),
  setting('maxConnections', {
    variable: 'MAX_CONNECTIONS',
    kind: integer(1, 1_000_000),
    default: '2048',
    meaning:
      'Most connections open at once per process; one arriving over it is closed at once (and a warning logged, at most every 10 s).',
  }),
  setting('maxConnectionsPerAddress', {
    variable: 'MAX_CONNECTIONS_PER_ADDRESS',
    kind: integer(1, 1_000_000),
    default: '256',
    meaning:
      "Most connections one client address (IPv6: its /64) holds open at once per process, so that one address cannot take all of `MAX_CONNECTIONS` from everyone else. A connection over it is closed on arrival; behind a proxy (`CLIENT_ADDRESS_HEADER`), whose own address is never capped, a connection counts for the client of its latest request, and the request that takes a client over the cap is answered `429` with `Connection: close`. Generous for an office or a carrier's NAT (a browser opens up to 6 connections to a host: 256 serve 40 such browsers at once, and many more at their usual one or two), yet 8 addresses are needed to fill the default `MAX_CONNECTIONS`.",
  }),
  setting('overloadMaxEventLoopDelayMs', {
    variable: 'OVERLOAD_MAX_EVENT_LOOP_DELAY',
    kind: duration(true),
    default: '200ms',
    meaning:
      "Shed load when the event loop runs this late on average (sampled every 250 ms): new work that can wait (creates, page views, status polls, the dashboard) is answered `503` with `Retry-After` at once, while requests that finish money already moving (operator callbacks, one-time codes, a card's return, the checkout's last page) and the health probes and `/metrics` are served. Before that, from half of it, creates, direct charges, payouts and refunds are refused in a growing share (docs/integrate/api-reference.md, Overload). `0`: never by this measure, and no such share. See docs/performance.md, Overload.",
  }),
  setting('overloadMaxEventLoopUtilization', {
    variable: 'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION',
    kind: integer(0, 100),
    default: '0',
    meaning:
      'Shed load (as `OVERLOAD_MAX_EVENT_LOOP_DELAY` says) when the event loop was busy more than this percentage of the last 250 ms. `0`: never by this measure (the default: a loop busy at 99 % may still keep up; its lateness says when it does not).',
  }),
  setting('overloadMaxInFlight', {
    variable: 'OVERLOAD_MAX_IN_FLIGHT',
    kind: integer(0, 1_000_000),
    default: '256',
    meaning:
      'Shed load (as `OVERLOAD_MAX_EVENT_LOOP_DELAY` says) while more than this many requests are being handled at once in this process (received, not yet answered; event streams not counted): the sign of a database that has fallen behind. `0`: no limit.',
  }),
  setting('shutdownGraceMs', {
    variable: 'SHUTDOWN_GRACE',
    kind: duration(true),
    default: '1s',
    meaning: 'On SIGTERM, how long to keep serving while readiness fails, before closing the listener.',
  }),
  setting('timeZone', {
    variable: 'TIMEZONE',
    kind: timeZone,
    default: 'Africa/Blantyre',
    meaning:
      'The IANA time zone of times shown to people: the hosted receipt page and receipt emails (`21 November 2026 at 16:33 CAT`). A zone the runtime does not know stops the start. API timestamps stay UTC.',
  }),
  setting('liveRoutes', {
    variable: 'LIVE_ROUTES',
    kind: liveRoutes,
    default: null,
    meaning:
      'Which connector moves live money for each channel, as `channel:connector` pairs: channels `airtel`, `tnm` (mobile money by operator), `card`, `bank` (bank transfer charges and bank payouts), `payout` (payouts to wallets); connectors `airtel` (serves `airtel`, `payout`) and `paychangu` (any channel). E.g. `airtel:airtel,payout:airtel,tnm:paychangu,card:paychangu,bank:paychangu`. A live payment on a channel with no connector is refused before anything is recorded. See docs/operate/connectors.md.',
  }),
  setting('connectorTimeoutMs', {
    variable: 'CONNECTOR_TIMEOUT',
    kind: duration(),
    default: '30s',
    meaning:
      'Longest one request to an operator may take; after it the outcome is unknown, so the payment stays pending and is asked about later (never sent again).',
  }),
  setting('liveSyncFirstMs', {
    variable: 'LIVE_SYNC_FIRST',
    kind: duration(),
    default: '10s',
    meaning: 'When a pending live payment, refund or payout is first asked about; each later ask waits twice as long…',
  }),
  setting('liveSyncMaxMs', {
    variable: 'LIVE_SYNC_MAX',
    kind: duration(),
    default: '10m',
    meaning: '…up to this.',
  }),
  setting('liveReviewAfterMs', {
    variable: 'LIVE_REVIEW_AFTER',
    kind: duration(),
    default: '30m',
    meaning:
      'A live payment, refund or payout with no final answer from its operator for this long is flagged for review (its logs, `lipira charges review`, the `lipira_live_in_review` metric); it is still asked about.',
  }),
  setting('airtelApiUrl', {
    variable: 'AIRTEL_API_URL',
    kind: httpUrl,
    default: 'https://openapi.airtel.africa',
    meaning: 'Airtel Money Open API (UAT: `https://openapiuat.airtel.africa`).',
  }),
  setting('airtelClientId', {
    variable: 'AIRTEL_CLIENT_ID',
    kind: optionalText,
    default: null,
    meaning: 'Airtel Open API client id; needed when `LIVE_ROUTES` uses `airtel`.',
  }),
  setting('airtelClientSecret', {
    variable: 'AIRTEL_CLIENT_SECRET',
    kind: optionalText,
    default: null,
    secret: true,
    meaning: 'Its client secret (never logged).',
  }),
  setting('airtelCountry', {
    variable: 'AIRTEL_COUNTRY',
    kind: text,
    default: 'MW',
    meaning: 'The `X-Country` of every Airtel request.',
  }),
  setting('airtelCurrency', {
    variable: 'AIRTEL_CURRENCY',
    kind: text,
    default: 'MWK',
    meaning: 'The `X-Currency` of every Airtel request.',
  }),
  setting('airtelDisbursementPin', {
    variable: 'AIRTEL_DISBURSEMENT_PIN',
    kind: optionalText,
    default: null,
    secret: true,
    meaning: "The disbursement account's PIN, sent RSA-encrypted with `AIRTEL_PUBLIC_KEY`; needed for `payout:airtel`.",
  }),
  setting('airtelPublicKey', {
    variable: 'AIRTEL_PUBLIC_KEY',
    kind: pemPublicKey,
    default: null,
    meaning: "Airtel's RSA public key, PEM (`-----BEGIN PUBLIC KEY-----…`); needed for `payout:airtel`.",
  }),
  setting('airtelCallbackSecret', {
    variable: 'AIRTEL_CALLBACK_SECRET',
    kind: optionalText,
    default: null,
    secret: true,
    meaning:
      "When Airtel's callback authentication is on: the key its callbacks' `hash` is made with; callbacks without a matching hash are refused.",
  }),
  setting('paychanguUpstreamUrl', {
    variable: 'PAYCHANGU_UPSTREAM_URL',
    kind: httpUrl,
    default: 'https://api.paychangu.com',
    meaning: 'The upstream PayChangu the `paychangu` connector uses.',
  }),
  setting('paychanguUpstreamSecretKey', {
    variable: 'PAYCHANGU_UPSTREAM_SECRET_KEY',
    kind: optionalText,
    default: null,
    secret: true,
    meaning: "The operator's secret key at the upstream; needed when `LIVE_ROUTES` uses `paychangu`.",
  }),
  setting('paychanguUpstreamWebhookSecret', {
    variable: 'PAYCHANGU_UPSTREAM_WEBHOOK_SECRET',
    kind: optionalText,
    default: null,
    secret: true,
    meaning:
      "The upstream account's webhook secret: its webhooks to `/callbacks/paychangu` must carry a matching `Signature`.",
  }),
] as const;
