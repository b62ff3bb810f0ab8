import { Type } from '@sinclair/typebox';
import { ping, type Database } from '../db/database.ts';
import { migrationsAreCurrent } from '../db/migrate.ts';
import { success, SuccessEnvelope } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { ApiError } from '../shared/errors.ts';
import type { WorkerLoop } from '../shared/worker-loop.ts';
import { backupTooOld, tooOldAfterMs, type BackupStatus } from '../operations/backup-schedule.ts';
import { showDuration } from '../settings/kinds.ts';

/** What readiness depends on beyond the database: the background workers, and not shutting down. */
export interface Lifecycle {
  /** Off (WORKERS=off) when other processes run the background workers: readiness then asks nothing of them. */
  runsWorkers: boolean;
  workers: WorkerLoop[];
  /** Shutting down: readiness fails so that load balancers stop sending. */
  draining: boolean;
  /** No longer listening: every answer tells its client to close the connection. */
  closing: boolean;
  /** The gateway's own backups (BACKUP_DIR); null when it keeps none. */
  backups: BackupStatus | null;
}

/**
 * Longest a readiness probe waits for the database. A load balancer gives up on a probe after a
 * second or two; a database that takes longer (a silent link, every connection stuck) is down
 * for it, and the probe says so instead of waiting out the pool's connect timeout.
 */
const PING_LIMIT_MS = 2_000;

const Checks = Type.Object({
  database: Type.String(),
  migrations: Type.String(),
  workers: Type.String(),
  /** `off`, `recent`, or `too old`: a warning, not a failure (see below). */
  backups: Type.String(),
  warnings: Type.Array(Type.String()),
});

export function registerHealthRoutes(
  app: App,
  { database, lifecycle }: { database: Database; lifecycle: Lifecycle },
): void {
  // Applied migrations stay applied: once they are current, reading the migration tables again
  // on every probe (several queries, ~3 ms) would tell nothing new.
  let migrationsCurrent = false;

  app.get(
    '/healthz',
    {
      config: { unlimited: true, servedWhenOverloaded: true },
      schema: {
        operationId: 'checkLiveness',
        summary: 'Liveness: the process is up',
        response: { 200: SuccessEnvelope(Type.Object({ process: Type.String() })) },
      },
    },
    async () => success('OK', { process: 'up' }),
  );

  app.get(
    '/readyz',
    {
      config: { unlimited: true, servedWhenOverloaded: true },
      schema: {
        operationId: 'checkReadiness',
        summary:
          'Readiness: database reachable, migrations current, workers running (or off by WORKERS=off), not shutting down; warns, still ready, when scheduled backups are too old',
        response: { 200: SuccessEnvelope(Checks), 503: { $ref: 'ErrorEnvelope' } },
      },
    },
    async (request) => {
      const checks = {
        database: 'up',
        migrations: 'current',
        workers: 'running',
        backups: 'off',
        warnings: [] as string[],
      };
      try {
        await withinLimit(ping(database), PING_LIMIT_MS);
        migrationsCurrent ||= await migrationsAreCurrent(database);
        if (!migrationsCurrent) checks.migrations = 'pending';
      } catch (error) {
        // Probes come every few seconds throughout an outage: a warning each, not an error.
        request.log.warn({ err: error }, 'readiness: database unreachable');
        checks.database = 'down';
      }
      if (lifecycle.draining) checks.workers = 'stopping';
      else if (!lifecycle.runsWorkers) checks.workers = 'off';
      else if (lifecycle.workers.length === 0 || !lifecycle.workers.every((worker) => worker.running()))
        checks.workers = 'stopped';
      // A backup too old is the operator's to fix, and no reason to send payments elsewhere: the
      // gateway stays ready and says so, for a probe's log and a person reading it.
      const backups = lifecycle.backups;
      if (backups) {
        checks.backups = backupTooOld(backups, Date.now()) ? 'too old' : 'recent';
        if (checks.backups === 'too old')
          checks.warnings.push(
            `no good backup for over ${showDuration(tooOldAfterMs(backups))} (twice BACKUP_INTERVAL): see the gateway's log for why`,
          );
      }
      if (checks.database !== 'up' || checks.migrations !== 'current' || !['running', 'off'].includes(checks.workers))
        throw new ApiError('unavailable');
      return success('Ready', checks);
    },
  );
}

/** `work`'s outcome, or a rejection once `limitMs` have passed without one. */
async function withinLimit<T>(work: Promise<T>, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
