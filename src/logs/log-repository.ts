import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import type { DB, LogsTable } from '../db/schema.ts';

export type LogEntry = Pick<Selectable<LogsTable>, 'type' | 'message' | 'created_at'>;

/** Appends to the activity log a session or charge shows in verification (`logs`). */
export async function addLog(db: Kysely<DB>, ownerId: string, message: string, now: number): Promise<void> {
  await db.insertInto('logs').values({ owner_id: ownerId, type: 'log', message, created_at: now }).execute();
}

/** Appends several log lines, in order, in one statement: `[ownerId, message]` each. */
export async function addLogs(
  db: Kysely<DB>,
  lines: Array<[ownerId: string, message: string]>,
  now: number,
): Promise<void> {
  await db.insertInto('logs').values(logRows(lines, now)).execute();
}

/** The rows of log lines `[ownerId, message]` written at `now`, for an INSERT of one's own. */
export function logRows(lines: Array<[ownerId: string, message: string]>, now: number): Array<Insertable<LogsTable>> {
  return lines.map(([ownerId, message]) => ({ owner_id: ownerId, type: 'log', message, created_at: now }));
}

/** What a `logsOf` column holds as read: JSON text on SQLite, already parsed by the driver on PostgreSQL. */
export type LogsColumn = string | LogEntry[];

/**
 * The logs of the row whose id is `ownerId` (a qualified column of the query it goes in), oldest
 * first, as one JSON array column: a verification reads its record and the logs in one
 * statement rather than two. Each statement has a fixed cost (on SQLite a read transaction and
 * its locks, on PostgreSQL a round trip) larger than reading a few log rows.
 */
export function logsOf(db: Kysely<DB>, ownerId: string): RawBuilder<LogsColumn> {
  const owner = sql.ref(ownerId);
  if (isPostgres(db)) {
    return sql<LogsColumn>`(select coalesce(json_agg(json_build_object('type', type, 'message', message, 'created_at', created_at) order by id), '[]'::json) from logs where owner_id = ${owner})`;
  }
  // Aggregated from a subquery already in order (the logs_owner index's): ORDER BY inside the
  // aggregate would sort them again in a temporary b-tree, which cost more than a second statement.
  return sql<LogsColumn>`(select json_group_array(json_object('type', type, 'message', message, 'created_at', created_at)) from (select type, message, created_at from logs where owner_id = ${owner} order by id))`;
}

/**
 * The row with its `logsOf` column read into entries, in place: copying a row of 27 columns
 * into a new object (`{ ...row, logs }`) takes V8's slow path for spreads, about 1.5 µs.
 */
export function withLogsRead<Row extends { logs: LogsColumn }>(row: Row): Omit<Row, 'logs'> & { logs: LogEntry[] } {
  if (typeof row.logs === 'string') row.logs = JSON.parse(row.logs) as LogEntry[];
  return row as Omit<Row, 'logs'> & { logs: LogEntry[] };
}
