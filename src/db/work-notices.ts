import type BetterSqlite3 from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { GATEWAY_APPLICATION_NAME } from './application-name.ts';

/** Which worker a row is work for; `events` is the event stream's poller (src/events/event-hub.ts). */
export type WorkKind = 'webhooks' | 'emails' | 'settler' | 'events';

/** Told that work of `kind` became due at `atMs` (epoch ms; now or later). */
export type OnWork = (kind: WorkKind, atMs: number) => void;

export interface WorkWatch {
  stop(): Promise<void>;
}

/**
 * The writes that give a worker something to do, as triggers: a row the worker will pick up is
 * added, or put back in its queue by hand (a webhook or email retried), or a charge or refund is
 * given an earlier time to ask its provider; and every event recorded, for the listeners of the
 * event stream. The workers' own bookkeeping (a claim, a failed try
 * put off, a later check) fires none. The same conditions are PostgreSQL triggers (migration 0018,
 * seen by every process, at commit) and SQLite temporary triggers (this connection's writes, as
 * they happen; the workers' reads wait for the writing transaction, see `prepared`).
 */
interface WorkRule {
  table: 'webhook_deliveries' | 'emails' | 'charges' | 'refunds' | 'events';
  event: 'insert' | 'update';
  when: string;
  kind: WorkKind;
  /** The column saying when the work is due. */
  at: 'next_attempt_at' | 'check_at' | 'created_at';
}

const REQUEUED = `NEW.status = 'pending' AND NEW.locked_until IS NULL AND (OLD.status <> 'pending' OR NEW.next_attempt_at < OLD.next_attempt_at)`;
const CHECK_SOONER = `NEW.status = 'pending' AND NEW.check_at IS NOT NULL AND (OLD.check_at IS NULL OR NEW.check_at < OLD.check_at)`;

const RULES: WorkRule[] = [
  {
    table: 'webhook_deliveries',
    event: 'insert',
    when: `NEW.status = 'pending'`,
    kind: 'webhooks',
    at: 'next_attempt_at',
  },
  { table: 'webhook_deliveries', event: 'update', when: REQUEUED, kind: 'webhooks', at: 'next_attempt_at' },
  { table: 'emails', event: 'insert', when: `NEW.status = 'pending'`, kind: 'emails', at: 'next_attempt_at' },
  { table: 'emails', event: 'update', when: REQUEUED, kind: 'emails', at: 'next_attempt_at' },
  {
    table: 'charges',
    event: 'insert',
    when: `NEW.status = 'pending' AND NEW.check_at IS NOT NULL`,
    kind: 'settler',
    at: 'check_at',
  },
  { table: 'charges', event: 'update', when: CHECK_SOONER, kind: 'settler', at: 'check_at' },
  {
    table: 'refunds',
    event: 'insert',
    when: `NEW.status = 'pending' AND NEW.check_at IS NOT NULL`,
    kind: 'settler',
    at: 'check_at',
  },
  { table: 'refunds', event: 'update', when: CHECK_SOONER, kind: 'settler', at: 'check_at' },
  { table: 'events', event: 'insert', when: 'NEW.created_at IS NOT NULL', kind: 'events', at: 'created_at' },
];

const CHANNEL = 'lipira_work';
const triggerName = (rule: WorkRule) => `lipira_work_${rule.table}_${rule.event}`;
const KINDS: ReadonlySet<string> = new Set<WorkKind>(['webhooks', 'emails', 'settler', 'events']);

/** The message a trigger sends, `kind:atMs`; null for anything else. */
export function parseWorkNotice(payload: string | undefined): { kind: WorkKind; atMs: number } | null {
  const [kind, at] = (payload ?? '').split(':');
  const atMs = Number(at);
  return kind !== undefined && KINDS.has(kind) && at !== '' && Number.isFinite(atMs)
    ? { kind: kind as WorkKind, atMs }
    : null;
}

/**
 * Migrations 0018 and 0028 (PostgreSQL): a trigger per rule, each notifying `lipira_work` with
 * `kind:atMs`. Every statement replaces what it makes, so running it again adds the rules since.
 */
export async function createPostgresWorkTriggers(db: Kysely<unknown>): Promise<void> {
  for (const column of ['next_attempt_at', 'check_at', 'created_at'] as const) {
    await sql
      .raw(
        `create or replace function lipira_notify_${column}() returns trigger language plpgsql as $$
         begin
           perform pg_notify('${CHANNEL}', tg_argv[0] || ':' || new.${column});
           return null;
         end $$`,
      )
      .execute(db);
  }
  for (const rule of RULES) {
    await sql.raw(`drop trigger if exists ${triggerName(rule)} on ${rule.table}`).execute(db);
    await sql
      .raw(
        `create trigger ${triggerName(rule)} after ${rule.event} on ${rule.table} for each row when (${rule.when}) execute function lipira_notify_${rule.at}('${rule.kind}')`,
      )
      .execute(db);
  }
}

/**
 * Calls `onWork` as this connection writes work, from temporary triggers (they live and die with
 * the connection; other processes on the file are seen by the workers' polls). The function the
 * triggers call never throws: a failed wake must not fail the write.
 */
export function watchSqliteWork(connection: BetterSqlite3.Database, onWork: OnWork): WorkWatch {
  let watching = true;
  connection.function('lipira_work', { deterministic: false }, (kind: unknown, at: unknown) => {
    if (watching && typeof kind === 'string' && KINDS.has(kind) && typeof at === 'number') {
      try {
        onWork(kind as WorkKind, at);
      } catch {
        // The poll finds the work all the same.
      }
    }
    return null;
  });
  for (const rule of RULES) {
    connection.exec(
      `create temp trigger if not exists ${triggerName(rule)} after ${rule.event} on main.${rule.table} for each row when ${rule.when} begin select lipira_work('${rule.kind}', NEW.${rule.at}); end`,
    );
  }
  return {
    async stop() {
      watching = false;
    },
  };
}

/** Longest pause between attempts to listen again after the connection was lost. */
const MAX_RELISTEN_MS = 5_000;
const FIRST_RELISTEN_MS = 250;

/**
 * Listens on its own connection for the triggers' notices, which PostgreSQL sends at commit to
 * every listening process, this one included. A lost connection is listened on again with a
 * growing pause; every worker is then woken once, for what was committed meanwhile.
 */
export function listenForPostgresWork(
  url: string,
  connectTimeoutMs: number | undefined,
  onWork: OnWork,
  log: FastifyBaseLogger | null,
): WorkWatch {
  let stopped = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let pauseMs = FIRST_RELISTEN_MS;
  let lost = false;

  const wakeEveryWorker = () => {
    for (const kind of KINDS) onWork(kind as WorkKind, Date.now());
  };
  const listenAgainLater = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void listen();
    }, pauseMs);
    pauseMs = Math.min(pauseMs * 2, MAX_RELISTEN_MS);
  };
  const connectionLost = (connection: pg.Client, error?: unknown) => {
    if (client !== connection) return;
    client = null;
    connection.removeAllListeners('notification');
    void connection.end().catch(() => undefined);
    if (stopped) return;
    if (!lost)
      log?.warn(
        { err: error },
        'stopped hearing of new work from other processes: polling until the database answers again',
      );
    lost = true;
    listenAgainLater();
  };
  async function listen() {
    const connection = new pg.Client({
      connectionString: url,
      application_name: GATEWAY_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: connectTimeoutMs,
    });
    client = connection;
    connection.on('error', (error) => connectionLost(connection, error));
    connection.on('end', () => connectionLost(connection));
    connection.on('notification', ({ channel, payload }) => {
      const notice = channel === CHANNEL ? parseWorkNotice(payload) : null;
      if (notice) onWork(notice.kind, notice.atMs);
    });
    try {
      await connection.connect();
      await connection.query(`listen ${CHANNEL}`);
    } catch (error) {
      connectionLost(connection, error);
      return;
    }
    if (stopped) return void connection.end().catch(() => undefined);
    if (lost) log?.info('hearing of new work again');
    lost = false;
    pauseMs = FIRST_RELISTEN_MS;
    wakeEveryWorker();
  }
  void listen();

  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const connection = client;
      client = null;
      await connection?.end().catch(() => undefined);
    },
  };
}
