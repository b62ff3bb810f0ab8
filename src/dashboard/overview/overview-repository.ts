import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { sessionOutcomeSql, type SessionOutcome } from '../../checkout/session-outcome.ts';
import { DIRECT_PAYMENTS } from '../direct-payments.ts';
import type { Mode } from '../../shared/ids.ts';

type Db = Kysely<DB>;

/** Whose payments, in which mode, and how a session's ending is told (`sessionOutcome`). */
export interface OverviewScope {
  merchantId: string;
  mode: Mode;
  maxFailedAttempts: number;
}

/**
 * A merchant's payments are its checkout sessions and its direct charges (charges of kind
 * `payment` made without a session: a session's attempts are counted through their session).
 * A payment is finished once it succeeded or failed; its volume is what succeeded. A session
 * that ended unpaid is `failed` only when its attempts failed: one the customer cancelled or let
 * expire is counted apart (`sessionOutcome`), since no payment of it failed.
 */
export interface DayTally {
  /** Index into the days asked for (0 = the oldest). */
  day: number;
  currency: string;
  succeeded: number;
  failed: number;
  cancelled: number;
  expired: number;
  /** Sum of the successful payments, minor units. */
  volumeMinor: number;
}

interface TallyRow {
  day: number | string;
  status: SessionOutcome;
  currency: string;
  count: number | string;
  amount: number | string | null;
}

/**
 * Finished payments by day, status and currency since the first of `dayStarts` (epoch ms, oldest
 * first). The day is worked out in SQL from the boundaries given, so that both databases bucket
 * by the gateway's time zone the same way; every row read is bounded by merchant, mode and
 * `created_at ≥ the first day`.
 */
export async function finishedPaymentsByDay(db: Db, scope: OverviewScope, dayStarts: number[]): Promise<DayTally[]> {
  const { merchantId, mode } = scope;
  const since = dayStarts[0]!;
  const day = dayIndex(dayStarts);
  const [sessions, charges] = await Promise.all([
    sql<TallyRow>`select ${day} as day, ${sessionOutcomeSql('checkout_sessions', scope.maxFailedAttempts)} as status, currency, count(*) as count, sum(amount_minor) as amount
      from checkout_sessions
      where merchant_id = ${merchantId} and mode = ${mode} and created_at >= ${since} and status in ('success', 'failed')
      group by 1, 2, 3`.execute(db),
    sql<TallyRow>`select ${day} as day, status, currency, count(*) as count, sum(amount_minor) as amount
      from charges
      where merchant_id = ${merchantId} and mode = ${mode} and created_at >= ${since} and ${DIRECT_PAYMENTS} and status in ('success', 'failed')
      group by 1, 2, 3`.execute(db),
  ]);
  const tallies = new Map<string, DayTally>();
  for (const row of [...sessions.rows, ...charges.rows]) {
    const key = `${row.day}/${row.currency}`;
    const tally = tallies.get(key) ?? {
      day: Number(row.day),
      currency: row.currency,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      expired: 0,
      volumeMinor: 0,
    };
    const count = Number(row.count);
    if (row.status === 'success') {
      tally.succeeded += count;
      tally.volumeMinor += Number(row.amount ?? 0);
    } else if (row.status === 'cancelled' || row.status === 'expired') {
      tally[row.status] += count;
    } else {
      tally.failed += count;
    }
    tallies.set(key, tally);
  }
  return [...tallies.values()];
}

/** `case when created_at >= <newest start> then <its index> … end`: which of the days a row falls on. */
function dayIndex(dayStarts: number[]): RawBuilder<number> {
  const branches = dayStarts.map((start, index) => ({ start, index })).reverse();
  return sql<number>`case ${sql.join(
    branches.map(({ start, index }) => sql`when created_at >= ${start} then ${sql.lit(index)}`),
    sql` `,
  )} end`;
}

export interface RecentPayment {
  /** What the dashboard's payment page is found by (`/dashboard/payments/<id>`): the session's id, or the direct charge's internal id. */
  id: string;
  kind: 'checkout' | 'direct';
  /** The merchant's own reference: the session's `tx_ref`, the charge's `charge_id`. */
  reference: string;
  status: string;
  amountMinor: number;
  currency: string;
  customer: string | null;
  createdAt: number;
}

/** The newest payments of the merchant in a mode, checkout sessions and direct charges together. */
export async function recentPayments(
  db: Db,
  { merchantId, mode, maxFailedAttempts }: OverviewScope,
  limit: number,
): Promise<RecentPayment[]> {
  const [sessions, charges] = await Promise.all([
    db
      .selectFrom('checkout_sessions')
      .select([
        'id',
        'tx_ref',
        sessionOutcomeSql('checkout_sessions', maxFailedAttempts).as('status'),
        'amount_minor',
        'currency',
        'first_name',
        'last_name',
        'email',
        'created_at',
      ])
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('charges')
      .select([
        'id',
        'charge_id',
        'status',
        'amount_minor',
        'currency',
        'first_name',
        'last_name',
        'email',
        'created_at',
      ])
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where(DIRECT_PAYMENTS)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute(),
  ]);
  const customer = (row: { first_name: string | null; last_name: string | null; email: string | null }) =>
    [row.first_name, row.last_name].filter(Boolean).join(' ') || row.email || null;
  return [
    ...sessions.map((row): RecentPayment => ({
      id: row.id,
      kind: 'checkout',
      reference: row.tx_ref,
      status: row.status,
      amountMinor: Number(row.amount_minor),
      currency: row.currency,
      customer: customer(row),
      createdAt: Number(row.created_at),
    })),
    ...charges.map((row): RecentPayment => ({
      id: row.id,
      kind: 'direct',
      reference: row.charge_id,
      status: row.status,
      amountMinor: Number(row.amount_minor),
      currency: row.currency,
      customer: customer(row),
      createdAt: Number(row.created_at),
    })),
  ]
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, limit);
}

/** The currencies the merchant has ledger accounts in, in a mode: each has balances to show. */
export async function balanceCurrencies(db: Db, merchantId: string, mode: Mode): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select('currency')
    .distinct()
    .where('owner', '=', merchantId)
    .where('mode', '=', mode)
    .orderBy('currency')
    .execute();
  return rows.map((row) => row.currency);
}
