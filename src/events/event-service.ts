import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import * as repo from './event-log-repository.ts';

export const DEFAULT_PER_PAGE = 20;

const DAY_MS = 86_400_000;

/** Events carry ids we issued: anything else names nothing, and is not asked of the database. */
const EVENT_ID = /^evt_[A-Za-z0-9]{1,60}$/;

export interface EventQuery {
  type?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * A time of the list's range in epoch ms; a day alone means its first millisecond (`from`) or
 * its last (`to`), in UTC like every time of the API. The schema checked the shape; a date that
 * does not exist (`2026-02-30`) is refused here, as Date would roll it into March.
 */
function rangeEnd(field: 'from' | 'to', text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const day = text.slice(0, 10);
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const dayExists = !Number.isNaN(dayStart) && new Date(dayStart).toISOString().startsWith(day);
  const ms = text.length === day.length ? dayStart : Date.parse(text);
  if (!dayExists || Number.isNaN(ms)) throw ApiError.field(field, `The ${field} is not a valid date.`);
  return text.length === day.length && field === 'to' ? ms + DAY_MS - 1 : ms;
}

/** A merchant's events in the key's mode, latest first, of one type and within a range when asked. */
export async function listEvents(db: Kysely<DB>, owner: Principal, query: EventQuery, page: number, perPage: number) {
  const from = rangeEnd('from', query.from);
  const to = rangeEnd('to', query.to);
  if (from !== undefined && to !== undefined && from > to)
    throw ApiError.field('to', 'The to must be a date after or equal to from.');
  return repo.listEvents(db, owner, { type: query.type, from, to }, page, perPage);
}

export async function showEvent(db: Kysely<DB>, owner: Principal, id: string): Promise<repo.EventRow> {
  const event = EVENT_ID.test(id) ? await repo.findEvent(db, owner, id) : undefined;
  if (!event) throw new ApiError('eventNotFound');
  return event;
}
