import type { DeliveryEvent } from './delivery-events.ts';
import type { DeliveryRow, EventRow, NewSession, SessionRow } from './rows.ts';
import { openPostgresBenchDb } from './postgres-db.ts';
import { openSqliteBenchDb } from './sqlite-db.ts';

/**
 * The bench's own connection to the gateway's database, beside the running gateway: for what is
 * too slow over HTTP (a million sessions) or has no HTTP route (queuing events). It is only used
 * between scenarios, while the gateway is idle, so it never competes with the load.
 */
export interface BenchDb {
  countSessions(): Promise<number>;
  findSession(merchantId: string, txRef: string): Promise<SessionRow | undefined>;
  /**
   * Inserts each session with its log in one transaction per batch, skipping any whose id or
   * reference is already taken (random keys do collide at a million rows); returns those skipped.
   */
  insertSessions(batch: NewSession[]): Promise<NewSession[]>;
  /** Brings the database to the state a long-running gateway's would be in after so many inserts. */
  afterBulkLoad(): Promise<void>;
  /**
   * Marks about a third of the pending sessions, picked by their random reference, successful: a
   * list filtered by status then finds its rows spread through the whole table, as a real
   * merchant's would be. The rows stay without a paid charge, which only the list reads.
   */
  markThirdOfSessionsPaid(): Promise<void>;
  pendingCharges(): Promise<number>;
  /** Inserts the events and their deliveries in one transaction, so the worker sees all of them at once. */
  queueEvents(events: EventRow[], deliveries: DeliveryRow[]): Promise<void>;
  /** The merchant's webhook deliveries with their charge's id and their event's `created_at` (when the state change that made it was written). */
  deliveryEvents(merchantId: string): Promise<DeliveryEvent[]>;
  close(): Promise<void>;
}

/** `databaseUrl` as the gateway was given it: `sqlite:PATH` or `postgres://…`. */
export function openBenchDb(databaseUrl: string): Promise<BenchDb> {
  return databaseUrl.startsWith('sqlite:')
    ? Promise.resolve(openSqliteBenchDb(databaseUrl.slice('sqlite:'.length)))
    : openPostgresBenchDb(databaseUrl);
}
