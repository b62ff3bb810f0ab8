import type { Kysely, Selectable } from 'kysely';
import type { DB, EventsTable } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { EventCursor } from './event-cursor.ts';

/** The reads of the event log: what `GET /events` lists and the event stream sends. */

export type EventRow = Selectable<EventsTable>;
type Db = Kysely<DB>;

export interface EventFilter {
  type?: string | undefined;
  /** Epoch ms, inclusive. */
  from?: number | undefined;
  /** Epoch ms, inclusive. */
  to?: number | undefined;
}

/** One merchant's events in the key's mode, latest first. */
export async function listEvents(
  db: Db,
  owner: Principal,
  filter: EventFilter,
  page: number,
  perPage: number,
): Promise<{ rows: EventRow[]; total: number }> {
  let query = db.selectFrom('events').where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<=', filter.to);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function findEvent(db: Db, owner: Principal, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

/** One merchant's events in one mode made at `since` or later, oldest first, after `after` in that order: a page of a replay. */
export function ownEventsSince(
  db: Db,
  owner: Principal,
  since: number,
  after: EventCursor | null,
  limit: number,
): Promise<EventRow[]> {
  let query = db
    .selectFrom('events')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .where('created_at', '>=', since);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Every merchant's events made at `since` or later, their ids and times only: what the stream's poller has not seen yet is among them. */
export function eventKeysSince(db: Db, since: number): Promise<Array<{ id: string; created_at: number }>> {
  return db
    .selectFrom('events')
    .select(['id', 'created_at'])
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function eventsByIds(db: Db, ids: readonly string[]): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('created_at').orderBy('id').execute();
}
