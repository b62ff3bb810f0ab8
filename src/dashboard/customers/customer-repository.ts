/**
 * The customers a merchant has been paid by, in one mode: every successful payment (a paid
 * checkout session, a successful direct payment) counted for its customer (`customerKeySql`),
 * newest customer first, a page at a time by keyset on (last paid, customer). A customer's
 * figures are added up from their payments on each read: the page reads every successful payment
 * of the merchant (or, searched, of those the search finds), not one row per customer.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/schema.ts';
import { CHARGE_SEARCH, SESSION_SEARCH } from '../../db/search-text.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import { DIRECT_PAYMENTS } from '../direct-payments.ts';
import { textMatches, type SearchPlan } from '../payments/payment-search-repository.ts';
import { customerKeySql } from './customer-key.ts';

type Db = Kysely<DB>;

export const CUSTOMERS_PER_PAGE = 50;

export interface Customer {
  /** Their email, lowercased, or the masked number they paid from. */
  key: string;
  payments: number;
  /** What they paid, per currency, in minor units, currencies in order. */
  totals: Array<{ currency: string; minor: number }>;
  /** When their last successful payment was made. */
  lastPaidAt: number;
}

/** Where a page of customers starts: after the customer before it (`older`), or before the one after it (`newer`). */
export interface CustomerCursor {
  lastPaidAt: number;
  key: string;
  direction: 'older' | 'newer';
}

export interface CustomerPage {
  customers: Customer[];
  hasOlder: boolean;
  hasNewer: boolean;
}

interface Grouped {
  customer: string;
  payments: number | string;
  last_paid_at: number | string;
  totals: string;
}

/** A page of customers, most recently paid first, from `cursor` (or the first); only those with a payment `plan` finds, when given. */
export async function customerPage(
  db: Db,
  owner: Principal,
  plan: SearchPlan | null,
  cursor: CustomerCursor | null,
): Promise<CustomerPage> {
  const read = async (from: CustomerCursor | null) => {
    const rows = await grouped(db, owner, plan, from, null, CUSTOMERS_PER_PAGE + 1);
    return { customers: rows.slice(0, CUSTOMERS_PER_PAGE), more: rows.length > CUSTOMERS_PER_PAGE };
  };
  const { customers, more } = await read(cursor);
  if (cursor?.direction !== 'newer') return { customers, hasOlder: more, hasNewer: cursor !== null };
  // Back at the top: the first page in full, rather than the few customers left before it.
  if (!more) {
    const top = await read(null);
    return { customers: top.customers, hasOlder: top.more, hasNewer: false };
  }
  return { customers: customers.reverse(), hasOlder: true, hasNewer: true };
}

/** One customer's figures, or undefined when they have no successful payment; `plan` is the search for their key. */
export async function customerOf(
  db: Db,
  owner: Principal,
  key: string,
  plan: SearchPlan,
): Promise<Customer | undefined> {
  return (await grouped(db, owner, plan, null, key, 1))[0];
}

/**
 * Customers with their figures, from the successful payments (those `plan` finds, when given; of
 * customer `only`, when given), in the cursor's order.
 */
async function grouped(
  db: Db,
  owner: Principal,
  plan: SearchPlan | null,
  cursor: CustomerCursor | null,
  only: string | null,
  limit: number,
): Promise<Customer[]> {
  const payments = paidPayments(db, owner, plan, only);
  // Per customer and currency first, then per customer: the totals of each currency as one text.
  const perCurrency = db
    .selectFrom(payments.as('p'))
    .select((eb) => [
      'p.customer',
      'p.currency',
      eb.fn.countAll<number>().as('payments'),
      eb.fn.sum<number>('p.amount_minor').as('total'),
      eb.fn.max('p.paid_at').as('last_paid_at'),
    ])
    .where('p.customer', 'is not', null)
    .groupBy(['p.customer', 'p.currency']);
  const totals = sql<string>`cast(t.currency as text) || ' ' || cast(t.total as text)`;
  const joined = isPostgres(db) ? sql<string>`string_agg(${totals}, ',')` : sql<string>`group_concat(${totals}, ',')`;
  const lastPaid = sql<number>`max(t.last_paid_at)`;
  let query = db
    .selectFrom(perCurrency.as('t'))
    .select([
      sql<string>`t.customer`.as('customer'),
      sql<number>`sum(t.payments)`.as('payments'),
      lastPaid.as('last_paid_at'),
      joined.as('totals'),
    ])
    .groupBy('t.customer');
  if (cursor) {
    const beyond = sql.raw(cursor.direction === 'older' ? '<' : '>');
    query = query.having(
      sql<SqlBool>`${lastPaid} ${beyond} ${cursor.lastPaidAt} or (${lastPaid} = ${cursor.lastPaidAt} and t.customer ${beyond} ${cursor.key})`,
    );
  }
  const order = cursor?.direction === 'newer' ? 'asc' : 'desc';
  const rows = (await query
    .orderBy(lastPaid, order)
    .orderBy(sql`t.customer`, order)
    .limit(limit)
    .execute()) as Grouped[];
  return rows.map((row) => ({
    key: row.customer,
    payments: Number(row.payments),
    lastPaidAt: Number(row.last_paid_at),
    totals: row.totals
      .split(',')
      .map((item) => {
        const [currency, minor] = item.split(' ');
        return { currency: currency!, minor: Number(minor) };
      })
      .sort((a, b) => a.currency.localeCompare(b.currency)),
  }));
}

/**
 * The merchant's successful payments as (id, customer, amount, currency, when paid). Searched,
 * a session is found by its own text or its paid charge's, as on the payments list: two queries
 * whose rows UNION makes one each.
 */
function paidPayments(db: Db, owner: Principal, plan: SearchPlan | null, only: string | null) {
  const sessions = (match: Expression<SqlBool> | null) => {
    const customer = customerKeySql('s.email', 'pc.mobile');
    let query = db
      .selectFrom('checkout_sessions as s')
      .leftJoin('charges as pc', 'pc.id', 's.paid_charge_id')
      .select([
        's.id',
        customer.as('customer'),
        's.amount_minor',
        's.currency',
        sql<number>`coalesce(s.completed_at, s.created_at)`.as('paid_at'),
      ])
      .where('s.merchant_id', '=', owner.merchantId)
      .where('s.mode', '=', owner.mode)
      .where('s.status', '=', 'success');
    if (match) query = query.where(match);
    if (only !== null) query = query.where(customer, '=', only);
    return query;
  };
  const customer = customerKeySql('c.email', 'c.mobile');
  let charges = db
    .selectFrom('charges as c')
    .select([
      'c.id',
      customer.as('customer'),
      'c.amount_minor',
      'c.currency',
      sql<number>`coalesce(c.completed_at, c.created_at)`.as('paid_at'),
    ])
    .where('c.merchant_id', '=', owner.merchantId)
    .where('c.mode', '=', owner.mode)
    .where(DIRECT_PAYMENTS)
    .where('c.status', '=', 'success');
  if (plan) charges = charges.where(textMatches(plan, CHARGE_SEARCH, 'c'));
  if (only !== null) charges = charges.where(customer, '=', only);
  if (!plan) return sessions(null).unionAll(charges);
  return sessions(textMatches(plan, SESSION_SEARCH, 's'))
    .union(sessions(sql<SqlBool>`pc.session_id = s.id and ${textMatches(plan, CHARGE_SEARCH, 'pc')}`))
    .union(charges);
}
