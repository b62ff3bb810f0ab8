import { sql, type Insertable, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { ChargesTable, DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { prepared } from '../db/prepared.ts';
import { logsOf, withLogsRead, type LogEntry } from '../logs/log-repository.ts';
import type { Outcome } from '../connectors/provider.ts';
import type { ChargeRef } from '../shared/ids.ts';

export type Charge = Selectable<ChargesTable>;
type Db = Kysely<DB>;

/** Inserts unless a unique key (`charge_id` for the merchant and mode, or `ref_id`) is taken. */
export async function insertChargeIfNew(db: Db, charge: Insertable<ChargesTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('charges')
    .values(charge)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

const chargeById = prepared((db, chargeRef: ChargeRef) =>
  db.selectFrom('charges').selectAll().where('id', '=', chargeRef),
);

export async function findCharge(db: Db, chargeRef: ChargeRef): Promise<Charge | undefined> {
  return (await chargeById(db, chargeRef))[0];
}

export function findSessionCharge(db: Db, sessionId: string, chargeId: string): Promise<Charge | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('charge_id', '=', chargeId)
    .executeTakeFirst();
}

const dueCharges = prepared((db, now: number, limit: number) =>
  db
    .selectFrom('charges')
    .selectAll()
    .where('status', '=', sql.lit('pending'))
    .where('check_at', '<=', now)
    .orderBy('check_at')
    .limit(limit),
);

/** Pending charges whose provider should be asked again by now. */
export function findDueCharges(db: Db, now: number, limit: number): Promise<Charge[]> {
  return dueCharges(db, now, limit);
}

/**
 * Moves a pending charge to the provider's outcome, with the fee taken. Only the first caller
 * wins: a charge ends once, whichever of the settler, a status poll or an OTP submission gets
 * there first.
 */
export async function finalizeCharge(
  db: Db,
  chargeRef: ChargeRef,
  outcome: Outcome,
  feeMinor: number,
  now: number,
): Promise<Charge | undefined> {
  const failed = outcome.status === 'failed';
  return db
    .updateTable('charges')
    .set({
      status: outcome.status,
      failure_reason: failed ? outcome.reason : null,
      failure_code: failed ? (outcome.code ?? null) : null,
      trans_id: failed ? null : outcome.transId,
      fee_minor: feeMinor,
      next_action: null,
      check_at: null,
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** A success its session could not count takes no fee: the money goes back to the customer whole. */
export async function waiveFee(db: Db, chargeRef: ChargeRef): Promise<Charge> {
  return db
    .updateTable('charges')
    .set({ fee_minor: 0 })
    .where('id', '=', chargeRef)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Removes a charge recorded for an attempt its provider refused at once: no money moved and
 * nothing was started, so the refusal leaves no record, as any other refused input. Only a charge
 * still pending with no provider state (never taken) goes.
 */
export async function discardUnstarted(db: Db, chargeRef: ChargeRef): Promise<boolean> {
  const result = await db
    .deleteFrom('charges')
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .where('provider_state', 'is', null)
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) return false;
  await db.deleteFrom('logs').where('owner_id', '=', chargeRef).execute();
  return true;
}

/**
 * Records what the provider said when it took a charge we had recorded: its state, what the charge
 * waits for (a payout: nothing), when to ask again. The charge as recorded, or undefined when it
 * had already ended (a callback can settle it before its start is answered).
 */
export async function recordStarted(
  db: Db,
  chargeRef: ChargeRef,
  started: { nextAction: Charge['next_action']; providerState: string; checkAt: number | null },
  now: number,
): Promise<Charge | undefined> {
  return startedUpdate(db, chargeRef, started, now).returningAll().executeTakeFirst();
}

/** The UPDATE `recordStarted` runs, to be run alone or inside a larger statement. */
export function startedUpdate(
  db: QueryCreator<DB>,
  chargeRef: ChargeRef,
  started: { nextAction: Charge['next_action']; providerState: string; checkAt: number | null },
  now: number,
) {
  return db
    .updateTable('charges')
    .set({
      next_action: started.nextAction,
      provider_state: started.providerState,
      check_at: started.checkAt,
      updated_at: now,
    })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending');
}

/** Flags a pending charge for a person to look at, once: true for the one caller that flagged it. */
export async function flagChargeForReview(db: Db, chargeRef: ChargeRef, reason: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('charges')
    .set({ review_reason: reason, updated_at: now })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .where('review_reason', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes a card charge's one-time code on to the issuer: true for the one caller that moved it
 * from waiting for the code to `confirming`, after which it can no longer be abandoned (the
 * issuer may take the money). `askAgainAt` lets the settler finish it should this process die.
 */
export async function claimCodeConfirmation(
  db: Db,
  chargeRef: ChargeRef,
  askAgainAt: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('charges')
    .set({ next_action: 'confirming', check_at: askAgainAt, updated_at: now })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .where('next_action', '=', 'otp')
    // A code is sent only for a card its provider has taken (not one whose start is still being asked).
    .where('provider_state', 'is not', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Fails a card charge still waiting for its one-time code: nothing was sent to the issuer, so no
 * money can follow. False when the code is already on its way (or the charge ended).
 */
export async function abandonBeforeCode(db: Db, chargeRef: ChargeRef, reason: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('charges')
    .set({
      status: 'failed',
      failure_reason: reason,
      failure_code: 'superseded',
      next_action: null,
      check_at: null,
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', chargeRef)
    .where('status', '=', 'pending')
    .where('next_action', '=', 'otp')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const chargeByChargeId = prepared((db, merchantId: string, mode: Principal['mode'], chargeId: string) =>
  db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('charge_id', '=', chargeId),
);

/** A merchant's charge or payout by its `charge_id`, in the key's mode. */
export async function findChargeByChargeId(db: Db, owner: Principal, chargeId: string): Promise<Charge | undefined> {
  return (await chargeByChargeId(db, owner.merchantId, owner.mode, chargeId))[0];
}

export type ChargeWithLogs = Charge & { logs: LogEntry[] };

const chargeWithLogsByChargeId = prepared((db, merchantId: string, mode: Principal['mode'], chargeId: string) =>
  db
    .selectFrom('charges')
    .selectAll()
    .select(logsOf(db, 'charges.id').as('logs'))
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('charge_id', '=', chargeId),
);

/** The same, with its logs, in one statement (what a verification shows). */
export async function findChargeWithLogsByChargeId(
  db: Db,
  owner: Principal,
  chargeId: string,
): Promise<ChargeWithLogs | undefined> {
  const row = (await chargeWithLogsByChargeId(db, owner.merchantId, owner.mode, chargeId))[0];
  return row && withLogsRead(row);
}
