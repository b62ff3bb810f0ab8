import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { ChargesTable, DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { prepared } from '../db/prepared.ts';
import { logsOf, withLogsRead, type LogEntry } from '../logs/log-repository.ts';
import type { Outcome } from './provider.ts';

export type Charge = Selectable<ChargesTable>;
type Db = Kysely<DB>;

/** Inserts unless a unique key (`charge_id` for the merchant and mode, or `ref_id`) is taken. */
export async function insertChargeIfNew(db: Db, charge: Insertable<ChargesTable>): Promise<boolean> {
  const inserted = await db.insertInto('charges').values(charge).onConflict((oc) => oc.doNothing()).returning('id').executeTakeFirst();
  return inserted !== undefined;
}

const chargeById = prepared((db, id: string) => db.selectFrom('charges').selectAll().where('id', '=', id));

export async function findCharge(db: Db, id: string): Promise<Charge | undefined> {
  return (await chargeById(db, id))[0];
}

export function findSessionCharge(db: Db, sessionId: string, chargeId: string): Promise<Charge | undefined> {
  return db.selectFrom('charges').selectAll().where('session_id', '=', sessionId).where('charge_id', '=', chargeId).executeTakeFirst();
}

const dueCharges = prepared((db, now: number, limit: number) =>
  db.selectFrom('charges').selectAll().where('status', '=', sql.lit('pending')).where('check_at', '<=', now).orderBy('check_at').limit(limit),
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
export async function finalizeCharge(db: Db, id: string, outcome: Outcome, feeMinor: number, now: number): Promise<Charge | undefined> {
  const failed = outcome.status === 'failed';
  return db
    .updateTable('charges')
    .set({
      status: outcome.status,
      failure_reason: failed ? outcome.reason : null,
      trans_id: failed ? null : outcome.transId,
      fee_minor: feeMinor,
      next_action: null,
      check_at: null,
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

const chargeByChargeId = prepared((db, merchantId: string, mode: Principal['mode'], chargeId: string) =>
  db.selectFrom('charges').selectAll().where('merchant_id', '=', merchantId).where('mode', '=', mode).where('charge_id', '=', chargeId),
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
export async function findChargeWithLogsByChargeId(db: Db, owner: Principal, chargeId: string): Promise<ChargeWithLogs | undefined> {
  const row = (await chargeWithLogsByChargeId(db, owner.merchantId, owner.mode, chargeId))[0];
  return row && withLogsRead(row);
}
