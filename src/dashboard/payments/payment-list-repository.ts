/**
 * The payments list: a merchant's checkout sessions and direct charges (payments not made through
 * a session: direct mobile money, direct card, bank transfer) in one newest-first list, read a
 * page at a time by keyset (created_at, id), never by OFFSET.
 *
 * Each table is read by its own query, which stops after a page's rows thanks to the indexes of
 * migration 0016 (merchant, mode[, status], created_at, id; for charges only the direct payments'
 * rows), and the pages are merged here. Those indexes serve the list as the page opens it and
 * filtered by status; the other filters (channel, dates, amounts) narrow the rows read along the
 * same index. A search reads through the full-text indexes of migration 0021 when it matches few
 * rows (payment-search-repository.ts), and finds a session by its own text or by its paid
 * charge's (charge_id, number, operator id): two queries, their rows merged with the charges'.
 */
import { sql, type Kysely } from 'kysely';
import { recordedStatus, sessionOutcomeSql } from '../../checkout/session-outcome.ts';
import { DIRECT_PAYMENTS } from '../direct-payments.ts';
import type { DB } from '../../db/schema.ts';
import { CHARGE_SEARCH, SESSION_SEARCH } from '../../db/search-text.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import type { Operator } from '../../shared/phone.ts';
import { customerKeySql } from '../customers/customer-key.ts';
import type { Cursor, PaymentChannel, PaymentFilters, PaymentStatus } from './payment-list-filters.ts';
import { planSearch, scopeRef, textMatches, type SearchPlan } from './payment-search-repository.ts';

type Db = Kysely<DB>;

export interface PaymentListRow {
  kind: 'session' | 'charge';
  /** The session's id or the charge's internal id: the detail page's `/dashboard/payments/<id>`. */
  id: string;
  created_at: number;
  /** The merchant's own reference: a session's tx_ref, a direct charge's charge_id. */
  merchant_ref: string;
  /** The gateway's reference. */
  reference: string;
  email: string | null;
  /** Masked; for a session, the number that paid it. */
  mobile: string | null;
  /** For a session, the channel that paid it; null while unpaid. */
  channel: PaymentChannel | null;
  amount_minor: number;
  currency: string;
  status: PaymentStatus;
  completed_at: number | null;
  first_name: string | null;
  last_name: string | null;
  /** A session's, as the merchant set it; a direct charge has none. */
  description: string | null;
  /** The fee taken, once successful (0 before). */
  fee_minor: number;
  /** The charge that paid (a session's paid attempt, or the direct charge itself): its internal id, for the ledger. */
  charge_ref: string | null;
  /** That charge's `charge_id`: for a session, the attempt's `ch_…`. */
  charge_id: string | null;
  /** How much of it was given back or is being given back; null while nothing paid. */
  refunded_minor: number | null;
  operator: Operator | null;
  card_brand: string | null;
  /** Masked (`424242******4242`). */
  card_number: string | null;
  /** The operator's id for it (`trans_id`). */
  trans_id: string | null;
}

export interface PaymentPage {
  rows: PaymentListRow[];
  /** Whether older rows (beyond the last) and newer rows (before the first) exist. */
  hasOlder: boolean;
  hasNewer: boolean;
}

export const PAGE_SIZE = 50;

/** What the list reads besides the filters: whose payments, and how a session's ending is told (`sessionOutcome`). */
export interface ListScope {
  principal: Principal;
  maxFailedAttempts: number;
}

/** A page of the list, newest first, starting after `cursor` (or at the newest). */
export async function paymentPage(
  db: Db,
  scope: ListScope,
  filters: PaymentFilters,
  cursor: Cursor | null,
): Promise<PaymentPage> {
  const read = await reader(db, scope, filters);
  const { rows, more } = await read(cursor, PAGE_SIZE);
  if (cursor?.direction !== 'newer') return { rows, hasOlder: more, hasNewer: cursor !== null };
  // Back at the top: the newest page in full, as the list opens, rather than the few rows left.
  if (!more) {
    const top = await read(null, PAGE_SIZE);
    return { rows: top.rows, hasOlder: top.more, hasNewer: false };
  }
  return { rows: rows.reverse(), hasOlder: true, hasNewer: true };
}

/** Every row the filters select, newest first, read `batch` at a time: what the CSV export writes. */
export async function* allPaymentRows(
  db: Db,
  scope: ListScope,
  filters: PaymentFilters,
  batch = 500,
): AsyncGenerator<PaymentListRow[]> {
  const read = await reader(db, scope, filters);
  let cursor: Cursor | null = null;
  for (;;) {
    const { rows, more } = await read(cursor, batch);
    if (rows.length > 0) yield rows;
    if (!more) return;
    const last = rows.at(-1)!;
    cursor = { createdAt: last.created_at, id: last.id, direction: 'older' };
  }
}

type Read = (cursor: Cursor | null, limit: number) => Promise<{ rows: PaymentListRow[]; more: boolean }>;

/**
 * What reads the filters' rows: up to `limit` beyond `cursor` in its direction (newest first for
 * `older`, oldest first for `newer`), and whether there are more. Each query gives at most
 * limit + 1; merged, the first limit + 1 are the answer's and its "more". A search is planned
 * once, for every page read with it.
 */
async function reader(db: Db, scope: ListScope, filters: PaymentFilters): Promise<Read> {
  const plan = filters.search ? await planSearch(db, filters.search) : null;
  return async (cursor, limit) => {
    const newer = cursor?.direction === 'newer';
    const lists = await Promise.all([
      sessionRows(db, scope, filters, plan && { plan, by: 'session' }, cursor, limit + 1),
      chargeRows(db, scope.principal, filters, plan, cursor, limit + 1),
      ...(plan ? [sessionRows(db, scope, filters, { plan, by: 'paid charge' }, cursor, limit + 1)] : []),
    ]);
    const merged = lists.reduce((a, b) => merge(a, b, newer)).slice(0, limit + 1);
    return { rows: merged.slice(0, limit), more: merged.length > limit };
  };
}

/**
 * Two lists each already in the order asked for, merged, a row in both (a session found by its
 * own text and by its paid charge's) once. Heads of the two lists only are ever compared: a
 * session id (its time in base36, beginning with a digit) and a charge id (`chg_…`) compare the
 * same in JavaScript as under any database collation, so the merge agrees with the order each
 * query's keyset condition used.
 */
function merge(a: PaymentListRow[], b: PaymentListRow[], ascending: boolean): PaymentListRow[] {
  const out: PaymentListRow[] = [];
  let i = 0;
  let j = 0;
  const first = (x: PaymentListRow, y: PaymentListRow) => {
    const later = x.created_at !== y.created_at ? x.created_at > y.created_at : x.id > y.id;
    return ascending ? !later : later;
  };
  while (i < a.length && j < b.length) {
    if (a[i]!.id === b[j]!.id) j++;
    else out.push(first(a[i]!, b[j]!) ? a[i++]! : b[j++]!);
  }
  return out.concat(a.slice(i), b.slice(j));
}

/**
 * Rows beyond the cursor in its direction. The bound on created_at alone comes first so that both
 * databases read it as a range of the index rather than filtering the merchant's rows from the top.
 */
function beyond(table: 's' | 'c', cursor: Cursor) {
  const createdAt = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.id`);
  return cursor.direction === 'newer'
    ? sql<boolean>`${createdAt} >= ${cursor.createdAt} and (${createdAt} > ${cursor.createdAt} or ${id} > ${cursor.id})`
    : sql<boolean>`${createdAt} <= ${cursor.createdAt} and (${createdAt} < ${cursor.createdAt} or ${id} < ${cursor.id})`;
}

/** A search's sessions: found by their own text, or by their paid charge's. */
interface SessionSearch {
  plan: SearchPlan;
  by: 'session' | 'paid charge';
}

async function sessionRows(
  db: Db,
  { principal, maxFailedAttempts }: ListScope,
  filters: PaymentFilters,
  search: SessionSearch | null,
  cursor: Cursor | null,
  limit: number,
): Promise<PaymentListRow[]> {
  const newer = cursor?.direction === 'newer';
  const outcome = sessionOutcomeSql('s', maxFailedAttempts);
  // Where SQLite reads the rows the search's index found (sessions', or their paid charges'), those are the way in.
  const found = search?.by === 'session' ? SESSION_SEARCH : CHARGE_SEARCH;
  const scoped = (ref: string) => scopeRef(search?.plan ?? null, found, ref);
  let query = db
    .selectFrom('checkout_sessions as s')
    .leftJoin('charges as pc', 'pc.id', 's.paid_charge_id')
    .select([
      sql.lit('session').$castTo<'session'>().as('kind'),
      's.id',
      's.created_at',
      's.tx_ref as merchant_ref',
      's.reference',
      's.email',
      'pc.mobile',
      sql<PaymentChannel | null>`pc.channel`.as('channel'),
      's.amount_minor',
      's.currency',
      outcome.as('status'),
      's.completed_at',
      's.first_name',
      's.last_name',
      's.description',
      's.fee_minor',
      'pc.id as charge_ref',
      'pc.charge_id',
      'pc.refunded_minor',
      'pc.operator',
      'pc.card_brand',
      'pc.card_number',
      'pc.trans_id',
    ])
    .where(scoped('s.merchant_id'), '=', principal.merchantId)
    .where(scoped('s.mode'), '=', principal.mode);
  // The recorded status first, which the index is ordered by.
  if (filters.status)
    query = query.where(scoped('s.status'), '=', recordedStatus(filters.status)).where(outcome, '=', filters.status);
  if (filters.channel) query = query.where('pc.channel', '=', filters.channel);
  if (filters.createdFrom !== null) query = query.where('s.created_at', '>=', filters.createdFrom);
  if (filters.createdBefore !== null) query = query.where('s.created_at', '<', filters.createdBefore);
  if (filters.minMinor !== null) query = query.where('s.amount_minor', '>=', filters.minMinor);
  if (filters.maxMinor !== null) query = query.where('s.amount_minor', '<=', filters.maxMinor);
  if (filters.customer !== null) query = query.where(customerKeySql('s.email', 'pc.mobile'), '=', filters.customer);
  if (search?.by === 'session') query = query.where(textMatches(search.plan, SESSION_SEARCH, 's'));
  // Only a paid session has a paid charge; its status first, which the index is ordered by.
  if (search?.by === 'paid charge')
    query = query
      .where(scoped('s.status'), '=', 'success')
      .whereRef('pc.session_id', '=', 's.id')
      .where(textMatches(search.plan, CHARGE_SEARCH, 'pc'));
  if (cursor) query = query.where(beyond('s', cursor));
  const order = newer ? 'asc' : 'desc';
  return (await query.orderBy('s.created_at', order).orderBy('s.id', order).limit(limit).execute()) as PaymentListRow[];
}

async function chargeRows(
  db: Db,
  principal: Principal,
  filters: PaymentFilters,
  plan: SearchPlan | null,
  cursor: Cursor | null,
  limit: number,
): Promise<PaymentListRow[]> {
  if (filters.status === 'cancelled' || filters.status === 'expired') return [];
  const newer = cursor?.direction === 'newer';
  const scoped = (ref: string) => scopeRef(plan, CHARGE_SEARCH, ref);
  let query = db
    .selectFrom('charges as c')
    .select([
      sql.lit('charge').$castTo<'charge'>().as('kind'),
      'c.id',
      'c.created_at',
      'c.charge_id as merchant_ref',
      'c.ref_id as reference',
      'c.email',
      'c.mobile',
      sql<PaymentChannel>`c.channel`.as('channel'),
      'c.amount_minor',
      'c.currency',
      'c.status',
      'c.completed_at',
      'c.first_name',
      'c.last_name',
      sql<null>`null`.as('description'),
      'c.fee_minor',
      'c.id as charge_ref',
      'c.charge_id',
      'c.refunded_minor',
      'c.operator',
      'c.card_brand',
      'c.card_number',
      'c.trans_id',
    ])
    .where(scoped('c.merchant_id'), '=', principal.merchantId)
    .where(scoped('c.mode'), '=', principal.mode)
    .where(DIRECT_PAYMENTS);
  if (filters.status) query = query.where(scoped('c.status'), '=', filters.status);
  if (filters.channel) query = query.where('c.channel', '=', filters.channel);
  if (filters.createdFrom !== null) query = query.where('c.created_at', '>=', filters.createdFrom);
  if (filters.createdBefore !== null) query = query.where('c.created_at', '<', filters.createdBefore);
  if (filters.minMinor !== null) query = query.where('c.amount_minor', '>=', filters.minMinor);
  if (filters.maxMinor !== null) query = query.where('c.amount_minor', '<=', filters.maxMinor);
  if (filters.customer !== null) query = query.where(customerKeySql('c.email', 'c.mobile'), '=', filters.customer);
  if (plan) query = query.where(textMatches(plan, CHARGE_SEARCH, 'c'));
  if (cursor) query = query.where(beyond('c', cursor));
  const order = newer ? 'asc' : 'desc';
  return (await query.orderBy('c.created_at', order).orderBy('c.id', order).limit(limit).execute()) as PaymentListRow[];
}
