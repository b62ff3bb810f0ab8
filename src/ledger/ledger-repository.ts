import { sql, type Insertable, type Kysely } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import type { AccountKind, DB, LedgerEntriesTable, LedgerTransactionsTable } from '../db/schema.ts';
import { ids, type Mode } from '../shared/ids.ts';
import { prepared } from '../db/prepared.ts';

type Db = Kysely<DB>;

/** The gateway's own accounts (fees earned, money to and from the outside world) have this owner. */
export const SYSTEM = 'system';

export interface AccountKey {
  owner: string;
  mode: Mode;
  currency: string;
  kind: AccountKind;
}

export interface Posting {
  account: AccountKey;
  /** Signed: what this entry adds to the account's balance. */
  amountMinor: number;
}

export interface LedgerTransaction {
  mode: Mode;
  kind: LedgerTransactionsTable['kind'];
  reference: string | null;
}

/** Refused because an account that must not go below zero would have. */
export class InsufficientFunds extends Error {}

/** Accounts whose balance may never go below zero: what a merchant can draw on. */
const NEVER_NEGATIVE: ReadonlySet<AccountKind> = new Set(['collection', 'main', 'payout_reserve', 'refunds_due']);

/**
 * Writes one balanced transaction and moves the balances it touches, in the caller's
 * transaction. A merchant account that would go negative refuses with InsufficientFunds, which
 * rolls the whole state change back: the check and the debit are one conditional UPDATE, so
 * concurrent payouts cannot both spend the same money.
 */
export async function post(trx: Db, transaction: LedgerTransaction, postings: Posting[], now: number): Promise<void> {
  const total = postings.reduce((sum, posting) => sum + posting.amountMinor, 0);
  if (total !== 0) throw new Error(`unbalanced ledger transaction (${transaction.kind}): entries sum to ${total}`);
  const id = ids.ledgerTransaction();
  const header = {
    id,
    mode: transaction.mode,
    kind: transaction.kind,
    reference: transaction.reference,
    created_at: now,
  };
  const accounts = await accountIds(
    trx,
    postings.map((posting) => posting.account),
    now,
  );
  const entries = postings.map((posting, i) => ({
    transaction_id: id,
    account_id: accounts[i]!,
    amount_minor: posting.amountMinor,
  }));
  const moves = movesByAccount(postings, accounts);
  let moved: number;
  if (isPostgres(trx)) moved = await postAtOnce(trx, header, entries, moves, now);
  else {
    await trx.insertInto('ledger_transactions').values(header).execute();
    await trx.insertInto('ledger_entries').values(entries).execute();
    moved = await moveBalancesInTurn(trx, moves, now);
  }
  if (moved < moves.length) throw new InsufficientFunds();
}

interface Move {
  id: string;
  amount: number;
  /** A debit of an account that must not go below zero: refused (not moved) when it would. */
  guarded: boolean;
}

/**
 * One move per account, its postings summed (PostgreSQL's one-statement UPDATE changes a row once,
 * however many of the postings name it), in id order: a fixed order of row locks keeps two
 * concurrent transactions from deadlocking on PostgreSQL.
 */
function movesByAccount(postings: Posting[], accounts: string[]): Move[] {
  const byAccount = new Map<string, { amount: number; kind: AccountKind }>();
  postings.forEach((posting, i) => {
    const id = accounts[i]!;
    byAccount.set(id, { amount: (byAccount.get(id)?.amount ?? 0) + posting.amountMinor, kind: posting.account.kind });
  });
  return [...byAccount]
    .map(([id, { amount, kind }]) => ({ id, amount, guarded: NEVER_NEGATIVE.has(kind) && amount < 0 }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** SQLite, where one transaction writes at a time: an UPDATE per account. */
async function moveBalancesInTurn(trx: Db, moves: Move[], now: number): Promise<number> {
  let moved = 0;
  for (const move of moves) {
    let update = trx
      .updateTable('ledger_accounts')
      .set({ balance_minor: sql`balance_minor + ${move.amount}`, updated_at: now })
      .where('id', '=', move.id);
    if (move.guarded) update = update.where('balance_minor', '>=', -move.amount);
    moved += Number((await update.executeTakeFirst()).numUpdatedRows);
  }
  return moved;
}

/**
 * PostgreSQL: every balance of the transaction in one statement, its rows locked first in id
 * order (the CTE's ORDER BY … FOR NO KEY UPDATE) as the turn-by-turn updates took them, and in
 * the mode an UPDATE takes: FOR UPDATE would conflict with the key-share locks the foreign keys of
 * concurrent transactions' entries hold on the same accounts, and deadlock with them. The accounts a
 * payment credits are rows every payment updates, each locked until the commit: moved one
 * statement at a time, the lock on the first was held across a round trip per further account,
 * each waiting its turn on a busy event loop, and payments queued behind it (the soak showed most
 * connections waiting on them). The ledger transaction and its entries are written in the same
 * statement: one round trip for the whole posting.
 */
async function postAtOnce(
  trx: Db,
  header: Insertable<LedgerTransactionsTable>,
  entries: Array<Insertable<LedgerEntriesTable>>,
  moves: Move[],
  now: number,
): Promise<number> {
  const rows = sql.join(moves.map((move) => sql`(${move.id}::text, ${move.amount}::bigint, ${move.guarded}::boolean)`));
  const entryRows = sql.join(
    entries.map((entry) => sql`(${entry.transaction_id}, ${entry.account_id}, ${entry.amount_minor}::bigint)`),
  );
  // The transaction and its entries are inserted by data-modifying CTEs, which run whether or not
  // the statement reads them; their foreign keys are checked at the statement's end.
  const result = await sql<{ moved: number }>`
    with header as (
      insert into ledger_transactions (id, mode, kind, reference, created_at)
      values (${header.id}, ${header.mode}, ${header.kind}, ${header.reference}, ${header.created_at}) returning id),
    entries as (insert into ledger_entries (transaction_id, account_id, amount_minor) values ${entryRows} returning 1),
    moves (id, amount, guarded) as (values ${rows}),
    locked as (select a.id from ledger_accounts a join moves m on m.id = a.id order by a.id for no key update of a),
    moved as (
      update ledger_accounts a set balance_minor = a.balance_minor + m.amount, updated_at = ${now}
      from moves m
      where a.id = m.id and a.id in (select id from locked) and (not m.guarded or a.balance_minor >= -m.amount)
      returning a.id)
    select count(*)::int as moved from moved`.execute(trx);
  return Number(result.rows[0]!.moved);
}

/** The ids of accounts, in the order of `keys`: all looked up in one statement, any not there yet opened (`accountId`). */
async function accountIds(trx: Db, keys: AccountKey[], now: number): Promise<string[]> {
  const rows = await trx
    .selectFrom('ledger_accounts')
    .select(['id', 'owner', 'mode', 'currency', 'kind'])
    .where((eb) =>
      eb.or(
        keys.map((key) =>
          eb.and([
            eb('owner', '=', key.owner),
            eb('mode', '=', key.mode),
            eb('currency', '=', key.currency),
            eb('kind', '=', key.kind),
          ]),
        ),
      ),
    )
    .execute();
  const found = (key: AccountKey) =>
    rows.find(
      (row) =>
        row.owner === key.owner && row.mode === key.mode && row.currency === key.currency && row.kind === key.kind,
    )?.id;
  return Promise.all(keys.map((key) => found(key) ?? accountId(trx, key, now)));
}

/**
 * The id of an account, opening it on first use. Looked up first: on PostgreSQL an INSERT … ON
 * CONFLICT that meets a row another transaction is updating waits for that transaction to end,
 * and the accounts every payment credits (the merchant's collection, the gateway's fees) are
 * always being updated; a plain read does not wait.
 */
async function accountId(trx: Db, key: AccountKey, now: number): Promise<string> {
  const [found] = await findAccount(trx, key);
  if (found) return found.id;
  await trx
    .insertInto('ledger_accounts')
    .values({ id: ids.ledgerAccount(), ...key, balance_minor: 0, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['owner', 'mode', 'currency', 'kind']).doNothing())
    .execute();
  const [row] = await findAccount(trx, key);
  return row!.id;
}

const accountByKey = prepared((db, owner: string, mode: Mode, currency: string, kind: AccountKind) =>
  db
    .selectFrom('ledger_accounts')
    .select(['id', 'balance_minor'])
    .where('owner', '=', owner)
    .where('mode', '=', mode)
    .where('currency', '=', currency)
    .where('kind', '=', kind),
);

function findAccount(db: Db, key: AccountKey) {
  return accountByKey(db, key.owner, key.mode, key.currency, key.kind);
}

/**
 * The balances of `keys` (opened on first use), each row locked until the transaction ends on
 * PostgreSQL, in account-id order as `post` updates them, so that a decision made on these
 * balances holds when it is posted and two such transactions never wait on each other in a
 * circle. SQLite runs one write transaction at a time: its reads already hold.
 */
export async function lockedBalances(trx: Db, keys: AccountKey[], now: number): Promise<number[]> {
  const accounts = await accountIds(trx, keys, now);
  const query = trx
    .selectFrom('ledger_accounts')
    .select(['id', 'balance_minor'])
    .where('id', 'in', accounts)
    .orderBy('id');
  const rows = await (isPostgres(trx) ? query.forUpdate() : query).execute();
  return accounts.map((id) => Number(rows.find((row) => row.id === id)!.balance_minor));
}

/** The entries of the ledger transactions of one kind that belong to `reference`, as postings. */
export async function postingsOf(db: Db, kind: LedgerTransactionsTable['kind'], reference: string): Promise<Posting[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_entries.transaction_id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .select([
      'ledger_accounts.owner',
      'ledger_accounts.mode',
      'ledger_accounts.currency',
      'ledger_accounts.kind',
      'ledger_entries.amount_minor',
    ])
    .where('ledger_transactions.kind', '=', kind)
    .where('ledger_transactions.reference', '=', reference)
    .orderBy('ledger_entries.id')
    .execute();
  return rows.map((row) => ({
    account: { owner: row.owner, mode: row.mode, currency: row.currency, kind: row.kind },
    amountMinor: Number(row.amount_minor),
  }));
}

export async function balanceOf(db: Db, key: AccountKey): Promise<number> {
  const [row] = await findAccount(db, key);
  return row?.balance_minor ?? 0;
}

/**
 * A merchant's collection and main balances together (what a refund may draw on), as a subquery
 * for another room's query: `owner`, `mode` and `currency` are column references of that query.
 */
export const spendableBalanceOf = (owner: string, mode: string, currency: string) =>
  sql<number>`(select coalesce(sum(balance_minor), 0) from ledger_accounts where owner = ${sql.ref(owner)} and mode = ${sql.ref(mode)} and currency = ${sql.ref(currency)} and kind in ('collection', 'main'))`;

/** Merchant collection accounts holding money, of one mode or of both, of every merchant or of one (`owner`), for settlement. */
export function collectionsToSettle(
  db: Db,
  mode?: Mode,
  owner?: string,
): Promise<Array<{ owner: string; mode: Mode; currency: string; balance_minor: number }>> {
  let query = db
    .selectFrom('ledger_accounts')
    .select(['owner', 'mode', 'currency', 'balance_minor'])
    .where('kind', '=', 'collection')
    .where('balance_minor', '>', 0);
  if (mode !== undefined) query = query.where('mode', '=', mode);
  if (owner !== undefined) query = query.where('owner', '=', owner);
  return query.execute();
}

/** Transactions whose entries do not sum to zero. */
export function unbalancedTransactions(db: Db): Promise<Array<{ transaction_id: string; total: number }>> {
  return db
    .selectFrom('ledger_entries')
    .select(['transaction_id', sql<number>`sum(amount_minor)`.as('total')])
    .groupBy('transaction_id')
    .having(sql`sum(amount_minor)`, '!=', 0)
    .execute();
}

/** Accounts whose running balance differs from the sum of their entries. */
export function driftedAccounts(db: Db): Promise<Array<{ id: string; balance_minor: number; entries_total: number }>> {
  return db
    .selectFrom('ledger_accounts')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('ledger_entries')
          .select(['account_id', sql<number>`sum(amount_minor)`.as('total')])
          .groupBy('account_id')
          .as('sums'),
      (join) => join.onRef('sums.account_id', '=', 'ledger_accounts.id'),
    )
    .select([
      'ledger_accounts.id',
      'ledger_accounts.balance_minor',
      sql<number>`coalesce(sums.total, 0)`.as('entries_total'),
    ])
    .where(sql`ledger_accounts.balance_minor`, '!=', sql`coalesce(sums.total, 0)`)
    .execute();
}

/** Charges credited as a collection more than once. */
export function creditedTwice(db: Db): Promise<Array<{ reference: string | null; credits: number }>> {
  return db
    .selectFrom('ledger_transactions')
    .select(['reference', sql<number>`count(*)`.as('credits')])
    .where('kind', '=', 'collection')
    .groupBy('reference')
    .having(sql`count(*)`, '>', 1)
    .execute();
}

/** Paid checkout sessions whose paying charge was not credited exactly once. */
export function paidSessionsNotCreditedOnce(db: Db): Promise<Array<{ id: string; credits: number }>> {
  return db
    .selectFrom('checkout_sessions')
    .leftJoin('ledger_transactions', (join) =>
      join
        .onRef('ledger_transactions.reference', '=', 'checkout_sessions.paid_charge_id')
        .on('ledger_transactions.kind', '=', 'collection'),
    )
    .select(['checkout_sessions.id', sql<number>`count(ledger_transactions.id)`.as('credits')])
    .where('checkout_sessions.status', '=', 'success')
    .groupBy('checkout_sessions.id')
    .having(sql`count(ledger_transactions.id)`, '!=', 1)
    .execute();
}

/** Successful checkout attempts that did not pay their session and were not held for a refund exactly once. */
export function uncountedSuccessesNotHeldOnce(db: Db): Promise<Array<{ id: string; holds: number }>> {
  return db
    .selectFrom('charges')
    .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
    .leftJoin('ledger_transactions', (join) =>
      join.onRef('ledger_transactions.reference', '=', 'charges.id').on('ledger_transactions.kind', '=', 'refund_hold'),
    )
    .select(['charges.id', sql<number>`count(ledger_transactions.id)`.as('holds')])
    .where('charges.status', '=', 'success')
    .where((eb) =>
      eb.or([
        eb('checkout_sessions.paid_charge_id', 'is', null),
        eb('checkout_sessions.paid_charge_id', '!=', eb.ref('charges.id')),
      ]),
    )
    .groupBy('charges.id')
    .having(sql`count(ledger_transactions.id)`, '!=', 1)
    .execute();
}

/** Refunds whose money left the ledger other than exactly once if they succeeded, never otherwise. */
export function refundsPaidOutWrongly(db: Db): Promise<Array<{ id: string; status: string; payouts: number }>> {
  return db
    .selectFrom('refunds')
    .leftJoin('ledger_transactions', (join) =>
      join
        .onRef('ledger_transactions.reference', '=', 'refunds.id')
        .on('ledger_transactions.kind', '=', 'refund_complete'),
    )
    .select(['refunds.id', 'refunds.status', sql<number>`count(ledger_transactions.id)`.as('payouts')])
    .groupBy(['refunds.id', 'refunds.status'])
    .having(sql`count(ledger_transactions.id)`, '!=', sql`case when refunds.status = 'success' then 1 else 0 end`)
    .execute();
}

/**
 * Payouts whose money did not move as it must: reserved from the main balance exactly once, then
 * paid out once if the payout succeeded or released once if it failed, never both, and neither
 * while it is under way.
 */
export function payoutsMovedWrongly(
  db: Db,
): Promise<Array<{ id: string; status: string; reserves: number; completes: number; releases: number }>> {
  const count = (kind: LedgerTransactionsTable['kind']) =>
    sql<number>`sum(case when ledger_transactions.kind = ${kind} then 1 else 0 end)`;
  return db
    .selectFrom('charges')
    .leftJoin('ledger_transactions', (join) =>
      join
        .onRef('ledger_transactions.reference', '=', 'charges.id')
        .on('ledger_transactions.kind', 'in', ['payout_reserve', 'payout_complete', 'payout_release']),
    )
    .select([
      'charges.id',
      'charges.status',
      count('payout_reserve').as('reserves'),
      count('payout_complete').as('completes'),
      count('payout_release').as('releases'),
    ])
    .where('charges.kind', '=', 'payout')
    .groupBy(['charges.id', 'charges.status'])
    .having((eb) =>
      eb.or([
        eb(count('payout_reserve'), '!=', 1),
        eb(count('payout_complete'), '!=', sql<number>`case when charges.status = 'success' then 1 else 0 end`),
        eb(count('payout_release'), '!=', sql<number>`case when charges.status = 'failed' then 1 else 0 end`),
      ]),
    )
    .execute();
}

/**
 * Merchant refunds whose money did not move as it must: reserved from the merchant's balance
 * exactly once, for exactly what the refund takes from it (its amount less the fee it gives back),
 * unless it is waiting for the balance (then never, and only while pending), and given back once
 * if the refund failed, never otherwise.
 */
export function merchantRefundsMovedWrongly(db: Db): Promise<
  Array<{
    id: string;
    status: string;
    pending_reason: string | null;
    reserves: number;
    reserved: number;
    releases: number;
  }>
> {
  const movements = (kind: 'refund_reserve' | 'refund_release') =>
    db
      .selectFrom('ledger_transactions')
      .innerJoin('ledger_entries', 'ledger_entries.transaction_id', 'ledger_transactions.id')
      .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
      .select([
        'ledger_transactions.reference',
        sql<number>`count(distinct ledger_transactions.id)`.as('times'),
        sql<number>`sum(case when ledger_accounts.kind = 'refunds_due' then ledger_entries.amount_minor else 0 end)`.as(
          'due',
        ),
      ])
      .where('ledger_transactions.kind', '=', kind)
      .groupBy('ledger_transactions.reference');
  return db
    .selectFrom('refunds')
    .leftJoin(movements('refund_reserve').as('reserve'), 'reserve.reference', 'refunds.id')
    .leftJoin(movements('refund_release').as('release'), 'release.reference', 'refunds.id')
    .select([
      'refunds.id',
      'refunds.status',
      'refunds.pending_reason',
      sql<number>`coalesce(reserve.times, 0)`.as('reserves'),
      sql<number>`coalesce(reserve.due, 0)`.as('reserved'),
      sql<number>`coalesce(release.times, 0)`.as('releases'),
    ])
    .where('refunds.source', '=', 'merchant')
    .where((eb) =>
      eb.or([
        eb(sql`coalesce(reserve.times, 0)`, '!=', sql`case when refunds.pending_reason is null then 1 else 0 end`),
        eb(
          sql`coalesce(reserve.due, 0)`,
          '!=',
          sql`case when refunds.pending_reason is null then refunds.amount_minor - refunds.fee_returned_minor else 0 end`,
        ),
        eb(sql`coalesce(release.times, 0)`, '!=', sql`case when refunds.status = 'failed' then 1 else 0 end`),
        eb.and([eb('refunds.pending_reason', 'is not', null), eb('refunds.status', '!=', 'pending')]),
      ]),
    )
    .execute();
}

/** Refunds whose going out took from the fees account other than exactly the fee share they give back. */
export function refundFeesPaidWrongly(
  db: Db,
): Promise<Array<{ id: string; fee_returned_minor: number; paid: number }>> {
  const completions = db
    .selectFrom('ledger_transactions')
    .innerJoin('ledger_entries', 'ledger_entries.transaction_id', 'ledger_transactions.id')
    .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_entries.account_id')
    .select([
      'ledger_transactions.reference',
      sql<number>`sum(case when ledger_accounts.kind = 'fees' then -ledger_entries.amount_minor else 0 end)`.as('paid'),
    ])
    .where('ledger_transactions.kind', '=', 'refund_complete')
    .groupBy('ledger_transactions.reference')
    .as('completion');
  return db
    .selectFrom('refunds')
    .innerJoin(completions, 'completion.reference', 'refunds.id')
    .select(['refunds.id', 'refunds.fee_returned_minor', 'completion.paid'])
    .where((eb) => eb('completion.paid', '!=', eb.ref('refunds.fee_returned_minor')))
    .execute();
}

/** Payments whose refunds (those not failed) give back more of the fee than the payment was charged. */
export function feesReturnedBeyondFee(db: Db): Promise<Array<{ id: string; fee_minor: number; returned: number }>> {
  return db
    .selectFrom('charges')
    .innerJoin('refunds', 'refunds.charge_ref', 'charges.id')
    .select(['charges.id', 'charges.fee_minor', sql<number>`sum(refunds.fee_returned_minor)`.as('returned')])
    .where('refunds.status', '!=', 'failed')
    .groupBy(['charges.id', 'charges.fee_minor'])
    .having(sql`sum(refunds.fee_returned_minor)`, '>', sql.ref('charges.fee_minor'))
    .execute();
}

/**
 * Charges whose refunded total is not what their refunds add up to (every uncounted refund, and
 * every merchant refund that has not failed), or that have refunds without having succeeded.
 * (More than was paid the database itself refuses: a CHECK on the column.)
 */
export function refundTotalsWrong(
  db: Db,
): Promise<Array<{ id: string; status: string; refunded_minor: number; counted: number }>> {
  const counted = db
    .selectFrom('refunds')
    .select(['charge_ref', sql<number>`sum(amount_minor)`.as('total')])
    .where((eb) => eb.or([eb('status', '!=', 'failed'), eb('source', '=', 'uncounted')]))
    .groupBy('charge_ref')
    .as('counted');
  return db
    .selectFrom('charges')
    .leftJoin(counted, 'counted.charge_ref', 'charges.id')
    .select([
      'charges.id',
      'charges.status',
      'charges.refunded_minor',
      sql<number>`coalesce(counted.total, 0)`.as('counted'),
    ])
    .where((eb) =>
      eb.or([
        eb(sql`coalesce(counted.total, 0)`, '!=', eb.ref('charges.refunded_minor')),
        eb.and([eb('charges.refunded_minor', '>', 0), eb('charges.status', '!=', 'success')]),
      ]),
    )
    .execute();
}
