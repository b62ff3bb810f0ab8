import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { claimAppState } from '../merchants/merchant-repository.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { settleCollections } from './ledger-service.ts';
import type { Clock } from '../shared/clock.ts';

const LAST_SETTLEMENT = 'last_settlement_at';

/**
 * True for the one caller, among all processes, that may run the settlement due now: the
 * marker of the last run moves forward only if it is at least one interval old.
 */
async function claimSettlement(db: Kysely<DB>, intervalMs: number, now: number): Promise<boolean> {
  // The first start only sets the clock: the first settlement comes one interval later.
  if (await claimAppState(db, LAST_SETTLEMENT, String(now))) return false;
  const result = await db
    .updateTable('app_state')
    .set({ value: String(now) })
    .where('key', '=', LAST_SETTLEMENT)
    .where(sql`cast(value as bigint)`, '<=', now - intervalMs)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Moves collected money to main balances once per `intervalMs` (T+1 by default). */
export function startSettlementWorker(
  { db, clock }: { db: Kysely<DB>; clock: Clock },
  intervalMs: number,
  log: FastifyBaseLogger | null,
): WorkerLoop {
  return startWorkerLoop(
    'settlement',
    Math.min(10_000, intervalMs),
    async () => {
      const now = clock.now();
      if (!(await claimSettlement(db, intervalMs, now))) return;
      const settled = await settleCollections(db, now);
      log?.info({ accounts: settled }, 'settled collections');
    },
    log,
  );
}
