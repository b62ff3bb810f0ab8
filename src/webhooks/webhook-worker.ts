import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB } from '../db/schema.ts';
import { nextRetry } from '../shared/retry-schedule.ts';
import { startWorkerLoop, type WorkerLoop } from '../shared/worker-loop.ts';
import {
  claimDueDeliveries,
  recordAttempt,
  type AttemptRecord,
  type Claimed,
  type NextStep,
} from '../events/delivery-repository.ts';
import { postWebhook, type SendOutcome } from './http-sender.ts';
import { signWebhook } from './signatures.ts';
import type { Clock } from '../shared/clock.ts';

export interface WebhookWorkerDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  transact: Transact;
  config: Config;
  clock: Clock;
  log: FastifyBaseLogger | null;
}

/** How many deliveries one round claims and sends side by side. */
const BATCH = 50;

/**
 * Sends due webhook deliveries: claims a batch under a lease longer than any send can take,
 * sends them concurrently, records each try, and goes on while there is due work.
 */
export function startWebhookWorker(deps: WebhookWorkerDeps): WorkerLoop {
  const leaseMs = deps.config.webhookTimeoutMs * 2 + 10_000;
  return startWorkerLoop(
    'webhooks',
    deps.config.workerIntervalMs,
    async (isStopping) => {
      while (!isStopping()) {
        const claimed = await claimDueDeliveries(deps, deps.clock.now(), leaseMs, BATCH);
        if (claimed.length === 0) return;
        await Promise.all(claimed.map((delivery) => deliver(deps, delivery)));
      }
    },
    deps.log,
  );
}

async function deliver({ db, transact, config, clock, log }: WebhookWorkerDeps, delivery: Claimed): Promise<void> {
  const attemptedAt = clock.now();
  const headers = signWebhook(
    delivery.payload,
    secretsAt(delivery, attemptedAt),
    delivery.id,
    Math.floor(attemptedAt / 1000),
  );
  const outcome = await postWebhook(delivery.url, delivery.payload, headers, {
    timeoutMs: config.webhookTimeoutMs,
    allowLoopback: delivery.mode === 'test' && config.webhookAllowLoopback,
  });
  const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const next: NextStep = delivered
    ? { status: 'delivered' }
    : nextRetry(delivery.attempts + 1, config.webhookRetryScheduleMs, clock.now(), outcome.retryAfterMs);
  if (!delivered) {
    log?.warn(
      {
        delivery: delivery.id,
        merchant: delivery.merchant_id,
        status: outcome.statusCode,
        error: outcome.error,
        next: next.status,
      },
      'webhook attempt failed',
    );
  }
  await recordAttempt(db, transact, delivery, attemptRecord(outcome, attemptedAt), next, clock.now());
}

/** The secrets a try at `at` is signed with, newest first: the mode's, and the one its last roll replaced while their overlap runs. */
function secretsAt({ secret, previous_secret: previous, previous_until: until }: Claimed, at: number) {
  return previous !== null && until !== null && at < until ? ([secret, previous] as const) : ([secret] as const);
}

/**
 * What the merchant's delivery log keeps of a try. What the receiver said (the start of its
 * answer, where it redirected) is kept only when it answered from a public address: a loopback
 * service that a test-mode delivery may reach under WEBHOOK_ALLOW_LOOPBACK is the operator's
 * machine, and its answers are not stored, so no API or CLI can show them.
 */
export function attemptRecord(outcome: SendOutcome, attemptedAt: number): AttemptRecord {
  const shown = outcome.answeredFrom === 'public';
  const error = shown && outcome.location !== null ? `Redirect to ${outcome.location} not followed` : outcome.error;
  return {
    attemptedAt,
    statusCode: outcome.statusCode,
    latencyMs: outcome.latencyMs,
    responseBody: shown ? outcome.responseBody : null,
    error,
  };
}
