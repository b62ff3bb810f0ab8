import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { nextRetry } from '../shared/retry-schedule.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { claimDueEmails, recordTry, releaseEmails, type Email, type TryOutcome } from './email-repository.ts';
import { createMailer, SEND_TIMEOUT_MS, type Mailer } from './transports.ts';

export interface EmailWorkerDeps {
  db: Kysely<DB>;
  /** PostgreSQL claims with FOR UPDATE SKIP LOCKED; SQLite runs one write transaction at a time and needs no such thing. */
  dialect: Dialect;
  config: Config;
  log: FastifyBaseLogger | null;
}

const BATCH = 10;
/** Room to send a whole batch one by one at the slowest: nobody else takes a row while it may still be sending. */
const LEASE_MS = BATCH * SEND_TIMEOUT_MS + 60_000;
/** What of a failure is kept on the row: enough to tell why, not a whole server transcript. */
const MAX_ERROR_LENGTH = 500;

/**
 * Sends queued emails until stopped: claims due rows, hands each to the mailer, and records
 * it as sent, due again after the configured delay, or failed once the schedule is used up.
 * Several processes may run it: a claim keeps a row to one of them.
 */
export function startEmailWorker(deps: EmailWorkerDeps): WorkerLoop {
  const mailer = createMailer(deps.config);
  const loop = startWorkerLoop('emails', deps.config.workerIntervalMs, (isStopping) => sendDueEmails(deps, mailer, isStopping), deps.log);
  return {
    running: loop.running,
    async stop() {
      await loop.stop();
      mailer.close();
    },
  };
}

/** Goes on while there is due work; one by one, since SMTP servers throttle senders that open many connections. */
async function sendDueEmails(deps: EmailWorkerDeps, mailer: Mailer, isStopping: () => boolean): Promise<void> {
  while (!isStopping()) {
    const claimed = await claimDueEmails(deps.db, deps.dialect, Date.now(), LEASE_MS, BATCH);
    if (claimed.length === 0) return;
    for (const [index, email] of claimed.entries()) {
      if (isStopping()) return releaseEmails(deps.db, claimed.slice(index));
      await sendOne(deps, mailer, email);
    }
  }
}

async function sendOne(deps: EmailWorkerDeps, mailer: Mailer, email: Email): Promise<void> {
  const outcome = await mailer.send(email).then(
    (): TryOutcome => ({ status: 'sent' }),
    (error: unknown): TryOutcome => ({ ...nextRetry(email.attempts + 1, deps.config.emailRetryScheduleMs, Date.now()), error: reasonOf(error) }),
  );
  await recordTry(deps.db, email, outcome, Date.now());
  // The id and kind identify the email; recipients and bodies stay out of the log.
  const context = { email: email.id, kind: email.kind, attempts: email.attempts + 1 };
  if (outcome.status === 'sent') deps.log?.info(context, 'email sent');
  else deps.log?.warn({ ...context, status: outcome.status, error: outcome.error }, 'email not sent');
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, MAX_ERROR_LENGTH);
}
