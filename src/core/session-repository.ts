import { sql, type Insertable, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { ChargesTable, CheckoutSessionsTable, DB, LogsTable } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { isPostgres } from '../db/dialect.ts';
import { prepared, preparedInsert, preparedStatement } from '../db/prepared.ts';
import type { Transact } from '../db/group-commit.ts';
import { addLogs, logRows, logsOf, withLogsRead, type LogEntry } from '../logs/log-repository.ts';
import { insertChargeIfNew, recordStarted, startedUpdate, type Charge } from './charge-repository.ts';
import { joinedChargeColumns, takeJoinedCharge } from './joined-charge.ts';
import type { ChargeRef } from '../shared/ids.ts';

export type CheckoutSession = Selectable<CheckoutSessionsTable>;
type Db = Kysely<DB>;

const insertSession = preparedInsert('checkout_sessions', (insert) => insert.onConflict((oc) => oc.doNothing()));
const insertLog = preparedInsert('logs');

/**
 * PostgreSQL: the session and its first log in one statement, atomic by itself, so a create is one
 * round trip to the server instead of four (BEGIN, two INSERTs, COMMIT); the log is written only
 * if the session was. Answers the rows inserted: 1, or 0 when a unique key was taken.
 */
const insertSessionWithLog = preparedStatement(
  (db, session: Insertable<CheckoutSessionsTable>, log: Insertable<LogsTable>) =>
    db
      .with('session', (db) =>
        db
          .insertInto('checkout_sessions')
          .values(session)
          .onConflict((oc) => oc.doNothing())
          .returning('id'),
      )
      .insertInto('logs')
      .columns(['owner_id', 'type', 'message', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('session')
          .select((eb) => [
            'session.id',
            eb.val(log.type).as('type'),
            eb.val(log.message).as('message'),
            eb.val(log.created_at).as('created_at'),
          ]),
      ),
  (session, log) => [...Object.values(session), log.type, log.message, log.created_at],
  (session) => Object.keys(session).join(),
);

/**
 * Records a new session with its first log, unless any unique key is taken (then nothing is
 * written and false is returned): on PostgreSQL in one statement of its own, on SQLite in a
 * transaction grouped with concurrent writes.
 */
export async function recordNewSession(
  db: Db,
  transact: Transact,
  session: Insertable<CheckoutSessionsTable>,
  log: Insertable<LogsTable>,
): Promise<boolean> {
  if (isPostgres(db)) return (await insertSessionWithLog(db, session, log)) === 1;
  return transact((trx) => insertSessionIfNew(trx, session, log));
}

/**
 * Inserts the session and its first log, in the caller's transaction, unless any unique key
 * (the merchant's `tx_ref`, our `reference` or token) is taken: then nothing is written and
 * false is returned. ON CONFLICT makes two concurrent creates with one `tx_ref` yield one row.
 */
export async function insertSessionIfNew(
  trx: Db,
  session: Insertable<CheckoutSessionsTable>,
  log: Insertable<LogsTable>,
): Promise<boolean> {
  if ((await insertSession(trx, session)) === 0) return false;
  await insertLog(trx, log);
  return true;
}

const sessionByTxRef = prepared((db, merchantId: string, mode: Principal['mode'], txRef: string) =>
  db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('tx_ref', '=', txRef),
);

export async function findSessionByTxRef(
  db: Db,
  owner: Principal,
  txRef: string,
): Promise<CheckoutSession | undefined> {
  return (await sessionByTxRef(db, owner.merchantId, owner.mode, txRef))[0];
}

export type SessionWithLogs = CheckoutSession & { logs: LogEntry[] };

const sessionToVerifyByTxRef = prepared((db, merchantId: string, mode: Principal['mode'], txRef: string) =>
  db
    .selectFrom('checkout_sessions')
    .leftJoin('charges', 'charges.id', 'checkout_sessions.paid_charge_id')
    .selectAll('checkout_sessions')
    .select(logsOf(db, 'checkout_sessions.id').as('logs'))
    .select(joinedChargeColumns)
    .where('checkout_sessions.merchant_id', '=', merchantId)
    .where('checkout_sessions.mode', '=', mode)
    .where('checkout_sessions.tx_ref', '=', txRef),
);

/**
 * The session, its logs and the charge that paid it (null until it is paid), in one statement:
 * what a verification shows. Each statement has a fixed cost (see `logsOf`) larger than these reads.
 */
export async function findSessionToVerify(
  db: Db,
  owner: Principal,
  txRef: string,
): Promise<{ session: SessionWithLogs; payment: Charge | null } | undefined> {
  const found = (await sessionToVerifyByTxRef(db, owner.merchantId, owner.mode, txRef))[0];
  if (!found) return undefined;
  const { row, charge } = takeJoinedCharge(found);
  return { session: withLogsRead(row), payment: charge ?? null };
}

const sessionById = prepared((db, id: string) => db.selectFrom('checkout_sessions').selectAll().where('id', '=', id));

export async function findSessionById(db: Db, id: string): Promise<CheckoutSession | undefined> {
  return (await sessionById(db, id))[0];
}

/** A session with the name, address and branding of the merchant being paid: what the hosted pages show. */
export type PageSession = CheckoutSession & {
  merchant_name: string;
  merchant_email: string;
  merchant_logo_url: string | null;
  merchant_brand_color: string | null;
};

function pageSessions(db: Db) {
  return db
    .selectFrom('checkout_sessions')
    .innerJoin('merchants', 'merchants.id', 'checkout_sessions.merchant_id')
    .selectAll('checkout_sessions')
    .select([
      'merchants.name as merchant_name',
      'merchants.email as merchant_email',
      'merchants.logo_url as merchant_logo_url',
      'merchants.brand_color as merchant_brand_color',
    ]);
}

const pageSessionById = prepared((db, id: string) => pageSessions(db).where('checkout_sessions.id', '=', id));

/** The session and its merchant's name and address in one statement. */
export async function findPageSession(db: Db, id: string): Promise<PageSession | undefined> {
  return (await pageSessionById(db, id))[0];
}

// The charge's id comes first: the join's condition precedes the WHERE in the SQL.
const pageSessionWithAttempt = prepared((db, chargeId: string, sessionId: string) =>
  pageSessions(db)
    .leftJoin('charges', (join) =>
      join.onRef('charges.session_id', '=', 'checkout_sessions.id').on('charges.charge_id', '=', chargeId),
    )
    .select(joinedChargeColumns)
    .where('checkout_sessions.id', '=', sessionId),
);

/**
 * The page session (`findPageSession`) and its attempt `chargeId` (`findSessionCharge`) in one
 * statement, as an attempt's page and its status polls read them; `charge` is undefined when the
 * session has no such attempt.
 */
export async function findPageSessionWithAttempt(
  db: Db,
  sessionId: string,
  chargeId: string,
): Promise<{ session: PageSession; charge: Charge | undefined } | undefined> {
  const found = (await pageSessionWithAttempt(db, chargeId, sessionId))[0];
  if (!found) return undefined;
  const { row, charge } = takeJoinedCharge(found);
  return { session: row, charge };
}

/**
 * The session, locked until the transaction ends on PostgreSQL (SQLite has one writer at a time
 * and no row locks). Every transaction that changes a session's attempt state takes the session
 * first and its charges after, so that two of them never wait for each other's rows in opposite
 * orders: measured, twenty parallel card attempts deadlocked without it.
 */
export function lockSession(trx: Db, id: string): Promise<CheckoutSession | undefined> {
  const query = trx.selectFrom('checkout_sessions').selectAll().where('id', '=', id);
  return (isPostgres(trx) ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * Makes `chargeId` the session's one attempt in flight, in place of `replacing` (null: none), if
 * the session is still payable and the slot still holds what the caller saw: the compare-and-set
 * is what keeps concurrent attempts (two tabs, a double click, a script) from all reaching the
 * customer's wallet. The slot is bookkeeping, not a change the merchant sees: `updated_at` moves
 * when the provider takes the attempt (`countAttempt`), so an attempt refused at once leaves the
 * session as it was.
 */
export async function claimAttemptSlot(
  db: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  now: number,
  replacing: ChargeRef | null = null,
): Promise<boolean> {
  const result = await slotClaim(db, sessionId, chargeRef, now, replacing).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function slotClaim(
  db: QueryCreator<DB>,
  sessionId: string,
  chargeRef: ChargeRef,
  now: number,
  replacing: ChargeRef | null,
) {
  return db
    .updateTable('checkout_sessions')
    .set({ pending_charge_id: chargeRef })
    .where('id', '=', sessionId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .where('pending_charge_id', replacing === null ? 'is' : '=', replacing);
}

/**
 * `claimAttemptSlot`, then `insertChargeIfNew` of `charge` if the slot was taken: what each did.
 * On PostgreSQL one statement, the charge inserted only when the slot's update took the row (a
 * data-modifying CTE); on SQLite two. A charge not inserted (a unique key taken) leaves the slot
 * taken: the caller rolls its transaction back, or frees the slot when it had none.
 */
export async function claimSlotWithCharge(
  trx: Db,
  sessionId: string,
  charge: Insertable<ChargesTable>,
  now: number,
  replacing: ChargeRef | null,
): Promise<{ claimed: boolean; inserted: boolean }> {
  if (!isPostgres(trx)) {
    if (!(await claimAttemptSlot(trx, sessionId, charge.id, now, replacing)))
      return { claimed: false, inserted: false };
    return { claimed: true, inserted: await insertChargeIfNew(trx, charge) };
  }
  const columns = Object.keys(charge) as Array<keyof ChargesTable & string>;
  const row = await trx
    .with('slot', (db) => slotClaim(db, sessionId, charge.id, now, replacing).returning('id'))
    .with('inserted', (db) =>
      db
        .insertInto('charges')
        .columns(columns)
        .expression((eb) =>
          eb.selectFrom('slot').select((eb) => columns.map((column) => eb.val(charge[column]).as(column))),
        )
        .onConflict((oc) => oc.doNothing())
        .returning('id'),
    )
    .selectNoFrom((eb) => [
      eb
        .selectFrom('slot')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .as('claimed'),
      eb
        .selectFrom('inserted')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .as('inserted'),
    ])
    .executeTakeFirstOrThrow();
  return { claimed: Number(row.claimed) > 0, inserted: Number(row.inserted) > 0 };
}

/** Frees the session's slot if `chargeRef` still holds it, or hands it back to the attempt it had replaced. */
export async function releaseAttemptSlot(
  db: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  handBackTo: ChargeRef | null = null,
): Promise<boolean> {
  const result = await db
    .updateTable('checkout_sessions')
    .set({ pending_charge_id: handBackTo })
    .where('id', '=', sessionId)
    .where('pending_charge_id', '=', chargeRef)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Counts an attempt the provider took (what verification shows as `number_of_attempts`). */
export async function countAttempt(db: Db, sessionId: string, now: number): Promise<void> {
  await db
    .updateTable('checkout_sessions')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', '=', sessionId)
    .execute();
}

/**
 * Records that the provider took the attempt `chargeRef`: the charge's start (`recordStarted`,
 * only while it is pending), the attempt counted on the session (`countAttempt`) and the log
 * lines (`[ownerId, message]`). On PostgreSQL one statement, atomic by itself, whose session
 * update takes the session's row before the charge's, the order `lockSession` keeps; no
 * transaction is needed around it. (A `FOR UPDATE` read of the session in the same statement
 * would not do: the row the statement updates is then one it has itself locked, and the update
 * skips it.) On SQLite three, in the caller's transaction.
 */
export async function recordAttemptTaken(
  trx: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  started: Parameters<typeof recordStarted>[2],
  logs: Array<[ownerId: string, message: string]>,
  now: number,
): Promise<void> {
  if (!isPostgres(trx)) {
    await recordStarted(trx, chargeRef, started, now);
    await countAttempt(trx, sessionId, now);
    await addLogs(trx, logs, now);
    return;
  }
  await trx
    .with('session', (db) =>
      db
        .updateTable('checkout_sessions')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: now }))
        .where('id', '=', sessionId)
        .returning('id'),
    )
    .with('charge', () =>
      startedUpdate(trx, chargeRef, started, now)
        // Evaluated once, before the charge's row is taken: the session's row is locked first.
        .where(sql<boolean>`exists (select 1 from session)`)
        .returning('id'),
    )
    .insertInto('logs')
    .values(logRows(logs, now))
    .execute();
}

/** The one transition to `success`, by the attempt in flight only: the session for the single caller that made it. */
export async function markPaid(
  db: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  feeMinor: number,
  now: number,
): Promise<CheckoutSession | undefined> {
  return db
    .updateTable('checkout_sessions')
    .set({
      status: 'success',
      paid_charge_id: chargeRef,
      pending_charge_id: null,
      fee_minor: feeMinor,
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', sessionId)
    .where('status', '=', 'pending')
    .where('pending_charge_id', '=', chargeRef)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Counts the failure of the attempt in flight on a pending session, freeing the session for the
 * next attempt; how many failures there have been, or null when the session ended or counts
 * another attempt.
 */
export async function countFailure(
  db: Db,
  sessionId: string,
  chargeRef: ChargeRef,
  now: number,
): Promise<number | null> {
  const row = await db
    .updateTable('checkout_sessions')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1), pending_charge_id: null, updated_at: now }))
    .where('id', '=', sessionId)
    .where('status', '=', 'pending')
    .where('pending_charge_id', '=', chargeRef)
    .returning('failed_attempts')
    .executeTakeFirst();
  return row ? row.failed_attempts : null;
}

/** Ends a pending session as `failed` (cancel, too many failures, expiry); with `onlyIfExpired`, only a session past its time. */
export async function markFailed(
  db: Db,
  sessionId: string,
  now: number,
  { onlyIfExpired = false }: { onlyIfExpired?: boolean } = {},
): Promise<boolean> {
  let query = db
    .updateTable('checkout_sessions')
    .set({ status: 'failed', completed_at: now, updated_at: now })
    .where('id', '=', sessionId)
    .where('status', '=', 'pending');
  if (onlyIfExpired) query = query.where('expires_at', '<=', now);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Moves a pending session's expiry to `now`, so that it is due, unless it already was: what the
 * passing of its time does, brought forward by a test helper. True when it moved.
 */
export async function bringExpiryForward(db: Db, sessionId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('checkout_sessions')
    .set({ expires_at: now })
    .where('id', '=', sessionId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
