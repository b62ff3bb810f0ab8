import { sql, type Kysely } from 'kysely';
import type { DB, LedgerTransactionsTable } from '../../db/schema.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import type { ChargeRef } from '../../shared/ids.ts';

type Db = Kysely<DB>;

/** One movement of a merchant's collection or main balance, with what it belongs to. */
export interface StatementEntry {
  /** The ledger entry's id: entries are numbered in the order they were written, the statement's order. */
  id: number;
  created_at: number;
  /** Which balance moved. */
  account: 'collection' | 'main';
  currency: string;
  /** Signed: what it added to that balance. */
  amount_minor: number;
  kind: LedgerTransactionsTable['kind'];
  /** The charge (payment or payout) it belongs to, when it belongs to one. */
  charge_ref: ChargeRef | null;
  charge_kind: 'payment' | 'payout' | null;
  charge_id: string | null;
  session_id: string | null;
  /** The refund it belongs to, and the payment that refund gives back. */
  refund_id: string | null;
  refunded_ref: ChargeRef | null;
  refunded_session_id: string | null;
}

export interface StatementRange {
  /** Entries before this entry id (the page after the last one shown); null from the newest. */
  beforeId: number | null;
  /** Epoch ms, inclusive; null when open. */
  from: number | null;
  /** Epoch ms, exclusive; null when open. */
  to: number | null;
}

/**
 * The entries of a merchant's collection and main balances in one mode, newest first: payments
 * credited (net of their fee), settlements from collection to main, payouts reserved (amount and
 * fee) or released after a failure, refunds taken or given back. The gateway's own accounts and a
 * payout's reserve (which the merchant cannot draw on) are not the merchant's statement.
 */
export function statementEntries(
  db: Db,
  owner: Principal,
  range: StatementRange,
  limit: number,
): Promise<StatementEntry[]> {
  let query = entriesOf(db, owner, range);
  if (range.beforeId !== null) query = query.where('ledger_entries.id', '<', range.beforeId);
  return query.orderBy('ledger_entries.id', 'desc').limit(limit).execute().then(toEntries);
}

/** One balance's entries in a range of time, oldest first, after the entry `afterId` (null: from the first). */
export function accountEntries(
  db: Db,
  owner: Principal,
  accountId: string,
  range: Omit<StatementRange, 'beforeId'>,
  afterId: number | null,
  limit: number,
): Promise<StatementEntry[]> {
  let query = entriesOf(db, owner, range).where('ledger_entries.account_id', '=', accountId);
  if (afterId !== null) query = query.where('ledger_entries.id', '>', afterId);
  return query.orderBy('ledger_entries.id', 'asc').limit(limit).execute().then(toEntries);
}

/** A merchant's collection or main balance in one currency, and what it held at a moment. */
export interface BalanceAt {
  accountId: string;
  account: 'collection' | 'main';
  currency: string;
  balanceMinor: number;
}

/**
 * Each of the merchant's collection and main balances in the mode, with what it held just before
 * `at`: the sum of its entries written earlier. A balance's entries never change, so this is what
 * a statement ending at `at` closed with.
 */
export async function balancesAt(db: Db, owner: Principal, at: number): Promise<BalanceAt[]> {
  const rows = await db
    .selectFrom('ledger_accounts as a')
    .leftJoin('ledger_entries as e', 'e.account_id', 'a.id')
    .leftJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select([
      'a.id',
      'a.kind',
      'a.currency',
      sql<number | string>`coalesce(sum(case when t.created_at < ${at} then e.amount_minor else 0 end), 0)`.as('held'),
    ])
    .where('a.owner', '=', owner.merchantId)
    .where('a.mode', '=', owner.mode)
    .where('a.kind', 'in', ['collection', 'main'])
    .groupBy(['a.id', 'a.kind', 'a.currency'])
    .orderBy('a.currency')
    .orderBy('a.kind')
    .execute();
  return rows.map((row) => ({
    accountId: row.id,
    account: row.kind as BalanceAt['account'],
    currency: row.currency,
    // PostgreSQL's sum of bigints is a numeric, which arrives as text.
    balanceMinor: Number(row.held),
  }));
}

function entriesOf(db: Db, owner: Principal, range: Omit<StatementRange, 'beforeId'>) {
  let query = db
    .selectFrom('ledger_entries')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
    .leftJoin('charges', 'charges.id', 'ledger_transactions.reference')
    .leftJoin('refunds', 'refunds.id', 'ledger_transactions.reference')
    .leftJoin('charges as refunded', 'refunded.id', 'refunds.charge_ref')
    .select([
      'ledger_entries.id',
      'ledger_transactions.created_at',
      'ledger_accounts.kind as account',
      'ledger_accounts.currency',
      'ledger_entries.amount_minor',
      'ledger_transactions.kind',
      'charges.id as charge_ref',
      'charges.kind as charge_kind',
      'charges.charge_id',
      'charges.session_id',
      'refunds.refund_id',
      'refunds.charge_ref as refunded_ref',
      'refunded.session_id as refunded_session_id',
    ])
    .where('ledger_accounts.owner', '=', owner.merchantId)
    .where('ledger_accounts.mode', '=', owner.mode)
    .where('ledger_accounts.kind', 'in', ['collection', 'main']);
  if (range.from !== null) query = query.where('ledger_transactions.created_at', '>=', range.from);
  if (range.to !== null) query = query.where('ledger_transactions.created_at', '<', range.to);
  return query;
}

function toEntries(rows: Array<Record<string, unknown>>): StatementEntry[] {
  return rows.map(
    (row) =>
      ({
        ...row,
        id: Number(row.id),
        amount_minor: Number(row.amount_minor),
        created_at: Number(row.created_at),
      }) as StatementEntry,
  );
}

/** The currencies the merchant has balances in, in one mode (kwacha always, even before any money moved). */
export async function balanceCurrencies(db: Db, owner: Principal): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select('currency')
    .distinct()
    .where('owner', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .where('kind', 'in', ['collection', 'main'])
    .execute();
  return [...new Set(['MWK', ...rows.map((row) => row.currency)])];
}
