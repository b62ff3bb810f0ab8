import type { Kysely, Selectable } from 'kysely';
import type { DB, LogsTable } from '../db/schema.ts';
import { prepared } from '../db/prepared.ts';

export type LogEntry = Pick<Selectable<LogsTable>, 'type' | 'message' | 'created_at'>;

/** Appends to the activity log a session or charge shows in verification (`logs`). */
export async function addLog(db: Kysely<DB>, ownerId: string, message: string, now: number): Promise<void> {
  await db.insertInto('logs').values({ owner_id: ownerId, type: 'log', message, created_at: now }).execute();
}

const logsOf = prepared((db, ownerId: string) => db.selectFrom('logs').select(['type', 'message', 'created_at']).where('owner_id', '=', ownerId).orderBy('id'));

export function listLogs(db: Kysely<DB>, ownerId: string): Promise<LogEntry[]> {
  return logsOf(db, ownerId);
}
