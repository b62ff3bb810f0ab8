import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimAppState } from '../merchants/merchant-repository.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { settleCollections } from './ledger-service.ts';
import type { Clock } from '../shared/clock.ts';
import type { Mode } from '../shared/ids.ts';

/**
 * How often each mode's collections settle: live every `SETTLEMENT_INTERVAL`; test the same way
 * every `TEST_SETTLEMENT`, or at once (`immediate`: a test payment is credited to the main
 * balance in the transaction that records it, see `creditCollection`).
 */
export interface SettlementSchedule {
  live: number;
  test: 'immediate' | number;
}

/** Each mode's marker of its last settlement (live's keeps the name it had when it settled both modes). */
const LAST_SETTLEMENT: Record<Mode, string> = { live: 'last_settlement_at', test: 'last_test_settlement_at' };
/** The longest the worker sleeps between looks at its markers. */
const LOOK_EVERY_MS = 10_000;

/**
 * True for the one caller, among all processes, that may run the mode's settlement due now: its
 * marker moves forward only if it is at least one interval old.
 */
async function claimSettlement(db: Kysely<DB>, mode: Mode, intervalMs: number, now: number): Promise<boolean> {
  // The first start only sets the clock: the first settlement comes one interval later.
  if (await claimAppState(db, LAST_SETTLEMENT[mode], String(now))) return false;
  const result = await db
    .updateTable('app_state')
    .set({ value: String(now) })
    .where('key', '=', LAST_SETTLEMENT[mode])
    .where(sql`cast(value as bigint)`, '<=', now - intervalMs)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Moves collected money to main balances, each mode on its schedule (T+1 by default for live).
 * With test settlement `immediate` nothing of test mode waits, but money collected into a test
 * collection balance before the switch (or by a process set otherwise) is settled every round.
 */
export function startSettlementWorker(
  { db, clock }: { db: Kysely<DB>; clock: Clock },
  schedule: SettlementSchedule,
  log: FastifyBaseLogger | null,
): WorkerLoop {
  const intervals = [schedule.live, schedule.test].filter((interval) => interval !== 'immediate');
  return startWorkerLoop(
    'settlement',
    Math.min(LOOK_EVERY_MS, ...intervals),
    async () => {
      const now = clock.now();
      for (const mode of ['live', 'test'] as const) {
        const interval = schedule[mode];
        if (interval !== 'immediate' && !(await claimSettlement(db, mode, interval, now))) continue;
        const settled = await settleCollections(db, now, mode);
        if (interval !== 'immediate' || settled > 0) log?.info({ mode, accounts: settled }, 'settled collections');
      }
    },
    log,
  );
}

/**
 * When the mode's next settlement runs (epoch ms): its last run's marker plus its interval;
 * `immediate` when its payments settle as they are recorded; null while no process running the
 * workers has started yet (the first start sets the marker). A time already past means it is due
 * and runs at the worker's next look.
 */
export async function nextSettlement(
  db: Kysely<DB>,
  mode: Mode,
  schedule: SettlementSchedule,
): Promise<'immediate' | number | null> {
  const interval = schedule[mode];
  if (interval === 'immediate') return interval;
  const marker = await db
    .selectFrom('app_state')
    .select('value')
    .where('key', '=', LAST_SETTLEMENT[mode])
    .executeTakeFirst();
  return marker ? Number(marker.value) + interval : null;
}
