import { sql, type Kysely } from 'kysely';
import type { DB, UserRole } from '../../db/schema.ts';
import type { Mode } from '../../shared/ids.ts';
import { DIRECT_PAYMENTS } from '../direct-payments.ts';

type Db = Kysely<DB>;

export interface MerchantVolume {
  mode: Mode;
  currency: string;
  volumeMinor: number;
}

/**
 * A merchant's successful payments since `since` (checkout sessions and direct charges), per mode
 * and currency. Asked merchant by merchant: each read is then a range of the payments lists'
 * `(merchant_id, mode, created_at)` indexes, where one query over every merchant would read every
 * successful payment ever made.
 */
export async function volumesSince(db: Db, merchantId: string, since: number): Promise<MerchantVolume[]> {
  const rows = await sql<{ mode: Mode; currency: string; amount: number | string }>`
    select mode, currency, sum(amount_minor) as amount from checkout_sessions
      where merchant_id = ${merchantId} and mode in ('test', 'live') and created_at >= ${since} and status = 'success' group by mode, currency
    union all
    select mode, currency, sum(amount_minor) as amount from charges
      where merchant_id = ${merchantId} and mode in ('test', 'live') and created_at >= ${since} and ${DIRECT_PAYMENTS} and status = 'success' group by mode, currency`.execute(
    db,
  );
  return rows.rows.map((row) => ({ mode: row.mode, currency: row.currency, volumeMinor: Number(row.amount) }));
}

/** How many dashboard users each merchant has (merchants with none are absent). */
export async function userCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('users')
    .select(['merchant_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('merchant_id', 'is not', null)
    .groupBy('merchant_id')
    .execute();
  return new Map(rows.map((row) => [row.merchant_id!, Number(row.count)]));
}

export interface MerchantUser {
  id: string;
  email: string;
  role: UserRole;
  /** Whether a password was set (a user invited by link has none until they use it). */
  passwordSet: boolean;
  twoFactor: boolean;
  disabled: boolean;
  createdAt: number;
}

export async function merchantUsers(db: Db, merchantId: string): Promise<MerchantUser[]> {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'password_hash', 'totp_secret', 'disabled_at', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    passwordSet: row.password_hash !== null,
    twoFactor: row.totp_secret !== null,
    disabled: row.disabled_at !== null,
    createdAt: Number(row.created_at),
  }));
}

/** An outbox's backlog: what waits to go out, and since when the longest-waiting due row has been due. */
export interface Backlog {
  pending: number;
  /** Rows given up on; null for work that is never given up (a charge is asked about until it ends). */
  failed: number | null;
  /** The earliest `next_attempt_at` among pending rows already due; null when none is. */
  dueSince: number | null;
}

export interface GatewayHealth {
  deliveries: Backlog;
  emails: Backlog;
  /** Pending payments and payouts, and since when the longest-due one has waited for the settler to ask its provider again. */
  charges: Backlog;
  /** Merchant collection balances holding money that the next settlement moves to main. */
  settlementsDue: number;
}

/**
 * What the database says about the gateway's background work. The outboxes are read as the
 * `/metrics` gauges read them (by status, over their `(status, next_attempt_at)` index), pending
 * charges as the settler finds them; a due row waiting long means no worker is keeping up, or none runs.
 */
export async function gatewayHealth(db: Db, now: number): Promise<GatewayHealth> {
  const [deliveries, emails, charges, settlements] = await Promise.all([
    backlog(db, 'webhook_deliveries', now),
    backlog(db, 'emails', now),
    pendingCharges(db, now),
    db
      .selectFrom('ledger_accounts')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('kind', '=', 'collection')
      .where('balance_minor', '>', 0)
      .executeTakeFirstOrThrow(),
  ]);
  return { deliveries, emails, charges, settlementsDue: Number(settlements.count) };
}

/** Read over the settler's own `(status, check_at)` index, as it reads its due work. */
async function pendingCharges(db: Db, now: number): Promise<Backlog> {
  const row = await sql<{ count: number | string; due_since: number | string | null }>`
    select count(*) as count, min(case when check_at <= ${now} then check_at end) as due_since
    from charges where status = 'pending'`.execute(db);
  const found = row.rows[0];
  return {
    pending: Number(found?.count ?? 0),
    failed: null,
    dueSince: found?.due_since === null || found?.due_since === undefined ? null : Number(found.due_since),
  };
}

async function backlog(db: Db, table: 'webhook_deliveries' | 'emails', now: number): Promise<Backlog> {
  const rows = await sql<{ status: string; count: number | string; due_since: number | string | null }>`
    select status, count(*) as count,
      min(case when status = 'pending' and next_attempt_at <= ${now} then next_attempt_at end) as due_since
    from ${sql.table(table)} where status in ('pending', 'failed') group by status`.execute(db);
  const pending = rows.rows.find((row) => row.status === 'pending');
  const failed = rows.rows.find((row) => row.status === 'failed');
  return {
    pending: Number(pending?.count ?? 0),
    failed: Number(failed?.count ?? 0),
    dueSince: pending?.due_since === null || pending?.due_since === undefined ? null : Number(pending.due_since),
  };
}
