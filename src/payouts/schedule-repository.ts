import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB, PayoutSchedulesTable } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { ChargeRef } from '../shared/ids.ts';

type Db = Kysely<DB>;

export type PayoutSchedule = Selectable<PayoutSchedulesTable>;

/** What a save sets: everything but the last run and the claim, which runs keep. */
export type ScheduleFields = Omit<
  Insertable<PayoutSchedulesTable>,
  'claimed_until' | 'last_run_at' | 'last_payout_ref' | 'last_result' | 'version'
>;

/** The merchant's schedule in one mode, if it has one. */
export function findSchedule(db: Db, owner: Principal): Promise<PayoutSchedule | undefined> {
  return db
    .selectFrom('payout_schedules')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

/**
 * Sets the merchant's schedule in its mode, one statement whether or not it had one (so two saves
 * at once leave one schedule): a changed one keeps its id, creation time and last run, and its
 * version moves on, which withdraws a run claimed under the old one.
 */
export function upsertSchedule(trx: Db, fields: ScheduleFields): Promise<PayoutSchedule> {
  const { id: _id, merchant_id: _merchant, mode: _mode, created_at: _created, ...changes } = fields;
  return trx
    .insertInto('payout_schedules')
    .values({ ...fields, version: 1 })
    .onConflict((conflict) =>
      conflict
        .columns(['merchant_id', 'mode'])
        .doUpdateSet({ ...changes, claimed_until: null, version: sql`payout_schedules.version + 1` }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the merchant's schedule in its mode; the one removed, if there was one. */
export function deleteSchedule(trx: Db, owner: Principal): Promise<PayoutSchedule | undefined> {
  return trx
    .deleteFrom('payout_schedules')
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .returningAll()
    .executeTakeFirst();
}

/** Schedules whose run is due by `now` and that no worker holds. */
export function findDueSchedules(db: Db, now: number, limit: number): Promise<PayoutSchedule[]> {
  return db
    .selectFrom('payout_schedules')
    .selectAll()
    .where('next_run_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}

/** The one schedule version and run `schedule` was read at: a claim or a run's end holds only while both stand. */
function sameRun(schedule: PayoutSchedule) {
  return (eb: ExpressionBuilder<DB, 'payout_schedules'>) =>
    eb.and([
      eb('id', '=', schedule.id),
      eb('next_run_at', '=', schedule.next_run_at),
      eb('version', '=', schedule.version),
    ]);
}

/**
 * Takes the run `schedule` is due for, until `until`: true for the one caller, in any process,
 * that found it unheld (or held by a claim that lapsed, its process gone).
 */
export async function claimRun(db: Db, schedule: PayoutSchedule, until: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('payout_schedules')
    .set({ claimed_until: until })
    .where(sameRun(schedule))
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends the run `schedule` was due for: what it did, and the next run. False when the schedule
 * moved on or changed meanwhile (another process ended this run, the owner changed or stopped
 * it): then this run must record nothing, pay nothing.
 */
export async function endRun(
  trx: Db,
  schedule: PayoutSchedule,
  run: { payoutRef: ChargeRef | null; result: string; nextRunAt: number },
): Promise<boolean> {
  const result = await trx
    .updateTable('payout_schedules')
    .set({
      next_run_at: run.nextRunAt,
      claimed_until: null,
      last_run_at: schedule.next_run_at,
      last_payout_ref: run.payoutRef,
      last_result: run.result,
    })
    .where(sameRun(schedule))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
