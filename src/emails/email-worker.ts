import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import { nextRetry } from '../shared/retry-schedule.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import { claimDueEmails, recordTry, releaseEmails, type ClaimedEmail, type TryOutcome } from './email-repository.ts';
import { createMailer, createOutboxMailer, SEND_TIMEOUT_MS, type Mailer } from './transports.ts';
import type { Clock } from '../shared/clock.ts';

export interface EmailWorkerDeps {
  db: Kysely<DB>;
  /** PostgreSQL claims with FOR UPDATE SKIP LOCKED; SQLite runs one write transaction at a time and needs no such thing. */
  dialect: Dialect;
  /** Where claims commit (grouped with concurrent writes on SQLite). */
  transact: Transact;
  config: Config;
  clock: Clock;
  log: FastifyBaseLogger | null;
}

const BATCH = 10;
/** Room to send a whole batch one by one at the slowest: nobody else takes a row while it may still be sending. */
const LEASE_MS = BATCH * SEND_TIMEOUT_MS + 60_000;
/** What of a failure is kept on the row: enough to tell why, not a whole server transcript. */
const MAX_ERROR_LENGTH = 500;

/** The configured way out (SMTP, or the outbox without it), and the outbox for mail that must stay on the machine. */
interface Mailers {
  configured: Mailer;
  outbox: Mailer;
}

/**
 * Sends queued emails until stopped: claims due rows, hands each to its mailer, and records
 * it as sent, due again after the configured delay, or failed once the schedule is used up.
 * Several processes may run it: a claim keeps a row to one of them.
 */
export function startEmailWorker(deps: EmailWorkerDeps): WorkerLoop {
  const mailers: Mailers = { configured: createMailer(deps.config), outbox: createOutboxMailer(deps.config) };
  const loop = startWorkerLoop(
    'emails',
    deps.config.workerIntervalMs,
    (isStopping) => sendDueEmails(deps, mailers, isStopping),
    deps.log,
  );
  return {
    running: loop.running,
    wake: loop.wake,
    async stop() {
      await loop.stop();
      mailers.configured.close();
      mailers.outbox.close();
    },
  };
}

/** What goes to a customer's address: a payment's receipt, and a refund's. */
const CUSTOMER_KINDS: ReadonlySet<ClaimedEmail['kind']> = new Set(['customer_receipt', 'customer_refund_receipt']);

/**
 * A test payment's or refund's customer receipt is written to the outbox, never sent to the
 * customer's address (unless TEST_RECEIPTS_TO_CUSTOMERS is on): anyone with a test key chooses
 * that address and the merchant text in the message (a refund's reason too), and would otherwise
 * have a free mail relay. The merchant's own receipts, and every receipt in live mode, go out as
 * configured.
 */
function mailerFor(email: ClaimedEmail, config: Config, mailers: Mailers): Mailer {
  const heldInOutbox = email.mode === 'test' && CUSTOMER_KINDS.has(email.kind) && !config.testReceiptsToCustomers;
  return heldInOutbox ? mailers.outbox : mailers.configured;
}

/** Goes on while there is due work; one by one, since SMTP servers throttle senders that open many connections. */
async function sendDueEmails(deps: EmailWorkerDeps, mailers: Mailers, isStopping: () => boolean): Promise<void> {
  while (!isStopping()) {
    const claimed = await claimDueEmails(deps, deps.clock.now(), LEASE_MS, BATCH);
    if (claimed.length === 0) return;
    for (const [index, email] of claimed.entries()) {
      if (isStopping()) return releaseEmails(deps.db, claimed.slice(index));
      await sendOne(deps, mailerFor(email, deps.config, mailers), email);
    }
  }
}

async function sendOne(deps: EmailWorkerDeps, mailer: Mailer, email: ClaimedEmail): Promise<void> {
  const outcome = await mailer.send(email).then(
    (): TryOutcome => ({ status: 'sent' }),
    (error: unknown): TryOutcome => ({
      ...nextRetry(email.attempts + 1, deps.config.emailRetryScheduleMs, deps.clock.now()),
      error: reasonOf(error),
    }),
  );
  await recordTry(deps.db, email, outcome, deps.clock.now());
  // The id and kind identify the email; recipients and bodies stay out of the log.
  const context = { email: email.id, kind: email.kind, attempts: email.attempts + 1 };
  if (outcome.status === 'sent') deps.log?.info(context, 'email sent');
  else deps.log?.warn({ ...context, status: outcome.status, error: outcome.error }, 'email not sent');
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, MAX_ERROR_LENGTH);
}
