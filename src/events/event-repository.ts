import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ids, type Mode } from '../shared/ids.ts';

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  type: 'checkout.payment' | 'api.charge.payment' | 'api.payout';
  subjectId: string;
  payload: Record<string, unknown>;
}

/**
 * Records an event for delivery. Callers pass the transaction of the state change that caused
 * it, so the event exists exactly when the change does.
 */
export async function emitEvent(trx: Kysely<DB>, event: NewEvent, now: number): Promise<void> {
  await trx
    .insertInto('events')
    .values({ id: ids.event(), merchant_id: event.merchantId, mode: event.mode, type: event.type, subject_id: event.subjectId, payload: JSON.stringify(event.payload), created_at: now })
    .execute();
}
