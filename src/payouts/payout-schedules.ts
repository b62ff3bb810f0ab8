import type { Kysely } from 'kysely';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { DB } from '../db/schema.ts';
import { merchantBalances } from '../ledger/ledger-service.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { feeMinor, moneyText } from '../shared/money.ts';
import { recordAudit } from '../users/audit.ts';
import { destinationOf, initializeBankPayout, type BankPayoutRequest } from './bank-payouts.ts';
import {
  deleteSchedule,
  endRun,
  findDueSchedules,
  upsertSchedule,
  claimRun,
  type PayoutSchedule,
} from './schedule-repository.ts';
import { nextRunAfter, runDay, type Cadence } from './schedule-times.ts';

/** The one currency payouts through the banks list are made in. */
const CURRENCY = 'MWK';
/** How long a worker holds a run it claimed: past this, its process is taken to be gone and another may run it. */
const RUN_CLAIM_MS = 5 * 60_000;
/** How many due schedules one round of the worker takes on. */
const BATCH = 100;

export interface ScheduleRequest {
  cadence: Cadence;
  /** The main balance a run needs before it pays anything out. */
  minimumMinor: number;
  /** Who it pays, as a payout through the banks list names them (a wallet: its operator's entry and the mobile number). */
  recipient: Pick<BankPayoutRequest, 'bank_uuid' | 'bank_account_name' | 'bank_account_number'>;
}

/** Work done in the transaction that saves or stops a schedule (the dashboard's audit entry). */
export type ScheduleAlongside = (trx: Kysely<DB>, schedule: PayoutSchedule) => Promise<void>;

type ScheduleDeps = Pick<PaymentDeps, 'transact' | 'clock' | 'timeZone'>;

/**
 * Sets the merchant's automatic payouts in its mode (docs/dashboard/README.md#automatic-payouts), or
 * changes them: the recipient is checked as a payout to it would be, and the first run is the
 * cadence's next after now. A run claimed under the old schedule is withdrawn, not paid.
 */
export async function savePayoutSchedule(
  deps: ScheduleDeps,
  owner: Principal,
  request: ScheduleRequest,
  { now = deps.clock.now(), alongside }: { now?: number; alongside: ScheduleAlongside },
): Promise<PayoutSchedule> {
  const destination = destinationOf(request.recipient);
  const id = ids.payoutSchedule();
  return deps.transact(async (trx) => {
    const schedule = await upsertSchedule(trx, {
      id,
      merchant_id: owner.merchantId,
      mode: owner.mode,
      frequency: request.cadence.frequency,
      weekday: request.cadence.weekday,
      minimum_minor: request.minimumMinor,
      currency: CURRENCY,
      bank_uuid: destination.bank.uuid,
      bank_name: destination.bank.name,
      account_name: request.recipient.bank_account_name,
      account_number: destination.accountNumber,
      next_run_at: nextRunAfter(request.cadence, now, deps.timeZone),
      created_at: now,
      updated_at: now,
    });
    await alongside(trx, schedule);
    return schedule;
  });
}

/** Stops the merchant's automatic payouts in its mode: the schedule that was stopped, or undefined when there was none. */
export async function stopPayoutSchedule(
  deps: ScheduleDeps,
  owner: Principal,
  { alongside }: { alongside: ScheduleAlongside },
): Promise<PayoutSchedule | undefined> {
  return deps.transact(async (trx) => {
    const stopped = await deleteSchedule(trx, owner);
    if (stopped) await alongside(trx, stopped);
    return stopped;
  });
}

/** A schedule's cadence, from its row. */
export function cadenceOf(schedule: Pick<PayoutSchedule, 'frequency' | 'weekday'>): Cadence {
  return schedule.frequency === 'weekly' && schedule.weekday !== null
    ? { frequency: 'weekly', weekday: schedule.weekday }
    : { frequency: 'daily', weekday: null };
}

/**
 * What a run pays out of `mainMinor`: the most whole kwacha (payouts are made in whole units)
 * whose amount and fee the balance covers. Everything else stays: the tambala and what the
 * fee's rounding leaves.
 */
export function payableMinor(mainMinor: number, payoutFeeBasisPoints: number): number {
  const fits = (kwacha: number) => kwacha * 100 + feeMinor(kwacha * 100, payoutFeeBasisPoints) <= mainMinor;
  let kwacha = Math.max(0, Math.floor(mainMinor / (100 + payoutFeeBasisPoints / 100)));
  while (kwacha > 0 && !fits(kwacha)) kwacha -= 1;
  while (fits(kwacha + 1)) kwacha += 1;
  return kwacha * 100;
}

/** What became of one due schedule in a worker's round. */
export type RunResult = 'paid' | 'skipped' | 'not_ours';

/**
 * Runs every schedule due by `now` that no other worker holds; what each run did. Several
 * processes may run this at once: a run is claimed by one, and its payout and the schedule's
 * move to the next run commit together, so a run pays once.
 */
export async function runDueSchedules(
  deps: PaymentDeps,
  now: number,
  isStopping: () => boolean = () => false,
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const schedule of await findDueSchedules(deps.db, now, BATCH)) {
    if (isStopping()) break;
    results.push(await runSchedule(deps, schedule, now));
  }
  return results;
}

/** A run whose schedule moved on, changed or stopped between its claim and its payout: it pays nothing. */
class RunWithdrawn extends Error {}

/**
 * One run: everything payable in the main balance, when the balance is at least the schedule's
 * minimum, paid to its recipient through the same service as an API payout (reservation, webhook,
 * audit entry), under a `charge_id` made of the schedule's id and the run's date.
 */
async function runSchedule(deps: PaymentDeps, schedule: PayoutSchedule, now: number): Promise<RunResult> {
  if (!(await claimRun(deps.db, schedule, now + RUN_CLAIM_MS, now))) return 'not_ours';
  const owner: Principal = { merchantId: schedule.merchant_id, mode: schedule.mode };
  // A run late by days (the gateway was down) is one run, and the next is the cadence's next after now.
  const nextRunAt = nextRunAfter(cadenceOf(schedule), Math.max(now, schedule.next_run_at), deps.timeZone);
  const skip = async (result: string): Promise<RunResult> => {
    await endRun(deps.db, schedule, { payoutRef: null, result, nextRunAt });
    return 'skipped';
  };

  const { mainMinor } = await merchantBalances(deps.db, owner.merchantId, owner.mode, schedule.currency);
  const amountMinor = payableMinor(mainMinor, deps.payoutFeeBasisPoints);
  if (mainMinor < schedule.minimum_minor)
    return skip(
      `Nothing paid out: the main balance, ${moneyText(schedule.currency, mainMinor)}, was below the minimum of ${moneyText(schedule.currency, schedule.minimum_minor)}.`,
    );
  if (amountMinor === 0)
    return skip(
      `Nothing paid out: the main balance, ${moneyText(schedule.currency, mainMinor)}, did not cover a payout and its fee.`,
    );
  const request: BankPayoutRequest = {
    payout_method: 'bank_transfer',
    bank_uuid: schedule.bank_uuid,
    amount: amountMinor / 100,
    charge_id: `auto_${schedule.id}_${runDay(schedule.next_run_at, deps.timeZone)}`,
    bank_account_name: schedule.account_name,
    bank_account_number: schedule.account_number,
  };
  try {
    await initializeBankPayout(deps, owner, request, {
      now,
      alongside: async (trx, payout) => {
        const result = `Paid out ${moneyText(payout.currency, payout.amount_minor)} (fee ${moneyText(payout.currency, payout.fee_minor)}).`;
        if (!(await endRun(trx, schedule, { payoutRef: payout.id, result, nextRunAt }))) throw new RunWithdrawn();
        await recordAudit(
          trx,
          {
            merchantId: owner.merchantId,
            userId: null,
            action: 'payout.automatic',
            subject: payout.id,
            detail: {
              schedule: schedule.id,
              mode: owner.mode,
              charge_id: payout.charge_id,
              amount_minor: payout.amount_minor,
              fee_minor: payout.fee_minor,
              currency: payout.currency,
              bank_uuid: schedule.bank_uuid,
            },
          },
          now,
        );
      },
    });
    return 'paid';
  } catch (error) {
    if (error instanceof RunWithdrawn) return 'not_ours';
    // The balance fell between reading and reserving it (a refund, another payout), or another
    // process's run already took this run's charge_id: either way this run pays nothing, and
    // a run another process ended is left as that process ended it.
    if (error instanceof ApiError)
      return skip(
        `Nothing paid out: the main balance no longer covered ${moneyText(schedule.currency, amountMinor)} and its fee when the payout was made.`,
      );
    throw error;
  }
}
