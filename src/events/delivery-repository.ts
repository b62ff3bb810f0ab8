import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import { preparedInsert, preparedStatement } from '../db/prepared.ts';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/schema.ts';
import type { Transact } from '../db/group-commit.ts';
import { anyDue, claimDue, dueToClaim, type Claimer } from '../db/leased-work.ts';
import type { StoredEvent } from './event-types.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ids } from '../shared/ids.ts';

export type Delivery = Selectable<WebhookDeliveriesTable>;
export type Attempt = Selectable<WebhookAttemptsTable>;
type Db = Kysely<DB>;

/** Queues the webhook for an event, in the transaction that recorded it. */
export async function queueWebhook(trx: Db, event: StoredEvent, url: string, now: number): Promise<void> {
  await trx
    .insertInto('webhook_deliveries')
    .values(newDelivery(event, url, now))
    .execute();
}

/** The webhook delivery of an event, as queued: due now, not yet tried. */
export function newDelivery(event: StoredEvent, url: string, now: number): Insertable<WebhookDeliveriesTable> {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: ids.delivery(),
    event_id: event.id,
    merchant_id: event.merchantId,
    mode: event.mode,
    event_type: event.type,
    tx_ref: text(event.payload.tx_ref),
    charge_id: text(event.payload.charge_id),
    url,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  };
}

/**
 * A claimed delivery with what sending it needs: its body, and the webhook secrets of its merchant
 * and mode as they are at the claim (the one a roll replaced, and until when it still signs).
 */
export interface Claimed extends Delivery {
  payload: string;
  secret: string;
  previous_secret: string | null;
  previous_until: number | null;
}

/** What sending a claimed delivery needs beside its own row: its body and its merchant's secrets. */
const SENDING_COLUMNS = [
  'events.payload',
  'webhook_secrets.secret',
  'webhook_secrets.previous_secret',
  'webhook_secrets.previous_until',
] as const;

/** Claims due deliveries for one worker until `now + leaseMs` (see `claimDue`), with what sending each needs. */
export async function claimDueDeliveries(
  claimer: Claimer,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<Claimed[]> {
  if (claimer.dialect === 'postgres') {
    // One statement, atomic by itself, for the claim and the read (the BEGIN, listing, UPDATE, read
    // and COMMIT of `claimDue`): the due rows locked FOR UPDATE SKIP LOCKED, leased, and read back
    // with their bodies and secrets.
    if (!(await anyDue(claimer.db, 'webhook_deliveries', now))) return [];
    return claimer.db
      .with('claimed', (db) =>
        db
          .updateTable('webhook_deliveries')
          .set({ locked_until: now + leaseMs })
          .where('id', 'in', dueToClaim(db, 'webhook_deliveries', now, limit))
          .returningAll(),
      )
      .selectFrom('claimed')
      .innerJoin('events', 'events.id', 'claimed.event_id')
      .innerJoin('webhook_secrets', (join) =>
        join
          .onRef('webhook_secrets.merchant_id', '=', 'claimed.merchant_id')
          .onRef('webhook_secrets.mode', '=', 'claimed.mode'),
      )
      .selectAll('claimed')
      .select(SENDING_COLUMNS)
      .execute();
  }
  return claimDue(claimer, 'webhook_deliveries', { now, leaseMs, limit }, (trx, ids) =>
    trx
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .innerJoin('webhook_secrets', (join) =>
        join
          .onRef('webhook_secrets.merchant_id', '=', 'webhook_deliveries.merchant_id')
          .onRef('webhook_secrets.mode', '=', 'webhook_deliveries.mode'),
      )
      .selectAll('webhook_deliveries')
      .select(SENDING_COLUMNS)
      .where('webhook_deliveries.id', 'in', ids)
      .execute(),
  );
}

export interface AttemptRecord {
  attemptedAt: number;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

export type NextStep = { status: 'delivered' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: number };

type AttemptRow = Insertable<WebhookAttemptsTable>;
/** What a try changes on its delivery, but the count of tries (one more). */
type Outcome = Pick<
  Updateable<WebhookDeliveriesTable>,
  'status' | 'next_attempt_at' | 'locked_until' | 'last_status_code' | 'last_error' | 'delivered_at' | 'updated_at'
>;

const insertAttempt = preparedInsert('webhook_attempts');

/** The outcome and one more try, to be written if the worker still holds the claim it sent under. */
const withOneMoreTry = (outcome: Outcome) => ({ ...outcome, attempts: sql<number>`attempts + 1` });
const outcomeValues = (outcome: Outcome, id: string, lockedUntil: number) => [
  ...Object.values(outcome),
  id,
  lockedUntil,
];

const recordOutcome = preparedStatement(
  (db, outcome: Outcome, id: string, lockedUntil: number) =>
    db
      .updateTable('webhook_deliveries')
      .set(withOneMoreTry(outcome))
      .where('id', '=', id)
      .where('locked_until', '=', lockedUntil),
  outcomeValues,
  () => 'outcome',
);
/** PostgreSQL: the try and its outcome in one statement, atomic by itself: one round trip rather than four. */
const recordAttemptWithOutcome = preparedStatement(
  (db, row: AttemptRow, outcome: Outcome, id: string, lockedUntil: number) =>
    db
      .with('attempt', (db) => db.insertInto('webhook_attempts').values(row))
      .updateTable('webhook_deliveries')
      .set(withOneMoreTry(outcome))
      .where('id', '=', id)
      .where('locked_until', '=', lockedUntil),
  (row: AttemptRow, outcome: Outcome, id: string, lockedUntil: number) => [
    ...Object.values(row),
    ...outcomeValues(outcome, id, lockedUntil),
  ],
  () => 'attempt with outcome',
);

/**
 * Records one try and what follows from it, if the worker still holds the claim it sent under
 * (a re-send requested meanwhile takes precedence over the outcome of the old try). On SQLite
 * through `transact`, so the tries of a batch sent side by side share commits: one commit (and
 * its wait for the disk) per try held delivery to ~1,400 a second (docs/performance-history.md); on
 * PostgreSQL as one statement.
 */
export async function recordAttempt(
  db: Db,
  transact: Transact,
  delivery: Delivery,
  attempt: AttemptRecord,
  next: NextStep,
  now: number,
): Promise<void> {
  const row: AttemptRow = {
    delivery_id: delivery.id,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    response_body: attempt.responseBody,
    error: attempt.error,
  };
  const outcome: Outcome = {
    status: next.status,
    next_attempt_at: next.status === 'pending' ? next.nextAttemptAt : delivery.next_attempt_at,
    locked_until: null,
    last_status_code: attempt.statusCode,
    last_error: attempt.error,
    delivered_at: next.status === 'delivered' ? now : null,
    updated_at: now,
  };
  const lockedUntil = delivery.locked_until!;
  if (isPostgres(db)) {
    await recordAttemptWithOutcome(db, row, outcome, delivery.id, lockedUntil);
    return;
  }
  await transact(async (trx) => {
    await insertAttempt(trx, row);
    await recordOutcome(trx, outcome, delivery.id, lockedUntil);
  });
}

export interface DeliveryFilter {
  status?: string | undefined;
  txRef?: string | undefined;
  chargeId?: string | undefined;
}

export async function listDeliveries(
  db: Db,
  owner: Principal,
  filter: DeliveryFilter,
  page: number,
  perPage: number,
): Promise<{ rows: Delivery[]; total: number }> {
  let query = db
    .selectFrom('webhook_deliveries')
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode);
  if (filter.status) query = query.where('status', '=', filter.status as Delivery['status']);
  if (filter.txRef) query = query.where('tx_ref', '=', filter.txRef);
  if (filter.chargeId) query = query.where('charge_id', '=', filter.chargeId);
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

export function findDelivery(
  db: Db,
  owner: Principal,
  id: string,
): Promise<(Delivery & { payload: string }) | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select('events.payload')
    .where('webhook_deliveries.id', '=', id)
    .where('webhook_deliveries.merchant_id', '=', owner.merchantId)
    .where('webhook_deliveries.mode', '=', owner.mode)
    .executeTakeFirst();
}

export function listAttempts(db: Db, deliveryId: string): Promise<Attempt[]> {
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
}

/** Puts a delivery back in the queue, due now, whatever became of it before. */
export async function requeueDelivery(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Makes a delivery waiting for its next try due now, as its time coming would (the work trigger
 * wakes the webhook worker); one being sent, or no longer waiting, is left as it is. True when it moved.
 */
export async function bringRetryForward(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('locked_until', 'is', null)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whose a delivery is: what the operator's CLI acts as when given only a delivery id. */
export async function findDeliveryOwner(db: Db, id: string): Promise<Principal | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['merchant_id', 'mode'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { merchantId: row.merchant_id, mode: row.mode } : null;
}
