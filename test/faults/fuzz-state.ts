import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';

export type TableName = keyof DB;

/**
 * What the fingerprint reads of each table: its row count, and for tables whose rows change in
 * place, aggregates that any such change moves (the latest `updated_at`, counters, statuses).
 * A request that changes nothing leaves every figure as it was.
 */
const FIGURES: Record<TableName, string> = {
  merchants: 'count(*), max(updated_at)',
  webhook_secrets: 'count(*), max(updated_at)',
  api_keys: 'count(*), max(expires_at)',
  checkout_sessions:
    "count(*), max(updated_at), sum(attempts), sum(failed_attempts), sum(case when status = 'pending' then 1 else 0 end), sum(case when pending_charge_id is null then 0 else 1 end)",
  charges:
    "count(*), max(updated_at), sum(attempts), sum(case when status = 'pending' then 1 else 0 end), sum(refunded_minor)",
  payout_recipients: 'count(*)',
  bank_transfer_accounts: 'count(*), sum(case when payer_bank is null then 0 else 1 end)',
  card_authentications: 'count(*), sum(wrong_codes)',
  events: 'count(*)',
  webhook_deliveries:
    "count(*), max(updated_at), sum(attempts), max(next_attempt_at), sum(case when status = 'pending' then 1 else 0 end)",
  webhook_attempts: 'count(*)',
  emails: "count(*), sum(case when status = 'pending' then 1 else 0 end)",
  ledger_accounts: 'count(*), max(updated_at), sum(abs(balance_minor))',
  ledger_transactions: 'count(*)',
  ledger_entries: 'count(*)',
  refunds: "count(*), max(updated_at), sum(case when status = 'pending' then 1 else 0 end)",
  logs: 'count(*)',
  app_state: 'count(*)',
  users: 'count(*), max(updated_at), sum(failed_logins)',
  user_sessions: 'count(*), max(last_seen_at)',
  password_links: 'count(*), sum(case when used_at is null then 0 else 1 end)',
  recovery_codes: 'count(*), sum(case when used_at is null then 0 else 1 end)',
  audit_log: 'count(*)',
  invitations: "count(*), sum(case when status = 'pending' then 1 else 0 end)",
  sign_ins: 'count(*)',
  payout_schedules: 'count(*), max(updated_at), max(next_run_at)',
  payment_links: 'count(*), max(updated_at), sum(payments_count)',
};

const TABLES = Object.keys(FIGURES) as TableName[];

export type Fingerprint = Record<TableName, string>;

/** Every table's figures, as text (so that PostgreSQL's numeric and SQLite's integer compare alike). */
export async function fingerprint(db: Kysely<DB>): Promise<Fingerprint> {
  const entries = await Promise.all(
    TABLES.map(async (table) => {
      const { rows } = await sql<
        Record<string, unknown>
      >`select ${sql.raw(FIGURES[table])} from ${sql.table(table)}`.execute(db);
      return [
        table,
        Object.values(rows[0] ?? {})
          .map((value) => (value === null ? 'null' : String(Number(value))))
          .join('/'),
      ] as const;
    }),
  );
  return Object.fromEntries(entries) as Fingerprint;
}

/** The tables whose figures differ between two fingerprints. */
export function changedTables(before: Fingerprint, after: Fingerprint): TableName[] {
  return TABLES.filter((table) => before[table] !== after[table]);
}

/** Tables whose new rows each accepted answer must name: a session by its id, a charge by owner, mode and charge_id. */
export type RecordTable = 'checkout_sessions' | 'charges';

/** The identities of the rows of `table` created at or after `since` (epoch ms). */
export async function newRecords(db: Kysely<DB>, table: RecordTable, since: number): Promise<Set<string>> {
  if (table === 'checkout_sessions') {
    const rows = await db.selectFrom('checkout_sessions').select('id').where('created_at', '>=', since).execute();
    return new Set(rows.map((row) => row.id));
  }
  const rows = await db
    .selectFrom('charges')
    .select(['merchant_id', 'mode', 'charge_id'])
    .where('created_at', '>=', since)
    .execute();
  return new Set(rows.map((row) => chargeIdentity(row.merchant_id, row.mode, row.charge_id)));
}

export const chargeIdentity = (merchantId: string, mode: string, chargeId: string): string =>
  `${merchantId}:${mode}:${chargeId}`;
