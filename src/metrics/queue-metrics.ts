import { sql, type Kysely } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import type { DB } from '../db/schema.ts';

const SESSION_STATUSES = ['pending', 'success', 'failed'] as const;
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;

interface StatusRow {
  status: string;
  count: number | string;
  /** The earliest `next_attempt_at` among pending rows already due; null when none is. */
  due_since?: number | string | null;
}

export interface QueueMetrics {
  /** Reads the current numbers from the database: one GROUP BY query per table. */
  refresh(now: number): Promise<void>;
  /** Drops every series, so that a scrape during a database outage shows no numbers rather than stale ones. */
  clear(): void;
}

/**
 * Gauges of what the database holds: checkout sessions, webhook deliveries and receipt emails by
 * status, and how long due work has waited in each outbox. They are read at scrape time, not kept
 * in step by the code that writes the rows, so that they stay true across processes and restarts.
 */
export function queueMetrics(registry: Registry, db: Kysely<DB>): QueueMetrics {
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const sessions = gauge('lipira_checkout_sessions', 'Checkout sessions by status.', ['status']);
  const deliveries = gauge('lipira_webhook_deliveries', 'Webhook deliveries by status.', ['status']);
  const deliveriesWaited = gauge(
    'lipira_webhook_queue_oldest_seconds',
    'How long the longest-waiting due webhook delivery has been due (0 when none is): grows when delivery falls behind.',
  );
  const emails = gauge('lipira_emails', 'Receipt emails by status.', ['status']);
  const emailsWaited = gauge(
    'lipira_email_queue_oldest_seconds',
    'How long the longest-waiting due email has been due (0 when none is): grows when sending falls behind.',
  );
  const inReview = gauge(
    'lipira_live_in_review',
    'Live payments, payouts and refunds flagged for review: no final answer from their operator for too long.',
    ['kind'],
  );
  const all = [sessions, deliveries, deliveriesWaited, emails, emailsWaited, inReview];

  return {
    async refresh(now: number) {
      const [sessionRows, deliveryRows, emailRows, reviewRows] = await Promise.all([
        sql<StatusRow>`select status, count(*) as count from checkout_sessions group by status`.execute(db),
        outboxQuery('webhook_deliveries', now).execute(db),
        outboxQuery('emails', now).execute(db),
        reviewQuery().execute(db),
      ]);
      for (const kind of ['payment', 'payout', 'refund']) inReview.set({ kind }, 0);
      for (const row of reviewRows.rows) inReview.set({ kind: row.kind }, Number(row.count));
      setByStatus(sessions, SESSION_STATUSES, sessionRows.rows);
      setByStatus(deliveries, DELIVERY_STATUSES, deliveryRows.rows);
      setByStatus(emails, EMAIL_STATUSES, emailRows.rows);
      deliveriesWaited.set(secondsWaited(deliveryRows.rows, now));
      emailsWaited.set(secondsWaited(emailRows.rows, now));
    },
    clear() {
      for (const metric of all) metric.reset();
    },
  };
}

/**
 * Counts by status and, in the same pass, the earliest due time of pending rows that are due.
 * A row waiting for a later retry is not late; one due since long ago (whether or not a worker
 * holds it right now) is, and that is what an alert wants to see. `(status, next_attempt_at)` is
 * indexed on both tables, so the query reads the index only.
 */
function outboxQuery(table: 'webhook_deliveries' | 'emails', now: number) {
  return sql<StatusRow>`
    select status, count(*) as count,
      min(case when status = 'pending' and next_attempt_at <= ${now} then next_attempt_at end) as due_since
    from ${sql.table(table)} group by status`;
}

/** Flagged rows still pending, by kind; the partial indexes on flagged rows keep this a read of those few. */
function reviewQuery() {
  return sql<{ kind: string; count: number | string }>`
    select kind, count(*) as count from charges where review_reason is not null and status = 'pending' group by kind
    union all
    select 'refund' as kind, count(*) as count from refunds where review_reason is not null and status = 'pending'`;
}

/** Every known status gets a value, 0 when no row has it, so that the series never vanish. */
function setByStatus(gauge: Gauge, statuses: readonly string[], rows: StatusRow[]): void {
  for (const status of statuses) gauge.set({ status }, 0);
  for (const row of rows) gauge.set({ status: row.status }, Number(row.count));
}

function secondsWaited(rows: StatusRow[], now: number): number {
  const dueSince = rows.find((row) => row.status === 'pending')?.due_since;
  return dueSince === null || dueSince === undefined ? 0 : Math.max(0, now - Number(dueSince)) / 1000;
}
