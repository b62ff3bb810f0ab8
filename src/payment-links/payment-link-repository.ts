import type { Insertable, Kysely, Selectable } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import type { DB, PaymentLinksTable } from '../db/schema.ts';
import type { CheckoutSession } from '../core/session-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';

export type PaymentLink = Selectable<PaymentLinksTable>;
type Db = Kysely<DB>;

/** A link with what its public page shows of its merchant. */
export interface BrandedLink extends PaymentLink {
  merchant_name: string;
  merchant_email: string;
  merchant_logo_url: string | null;
  merchant_brand_color: string | null;
}

/** Inserts the link unless its slug or id is taken (then nothing is written, and false is answered). */
export async function insertLinkIfNew(db: Db, link: Insertable<PaymentLinksTable>): Promise<boolean> {
  const result = await db
    .insertInto('payment_links')
    .values(link)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/**
 * Ids and slugs are base62 with an underscore (ids.paymentLink, ids.paymentLinkSlug): any other
 * text is no link, and is not sent to the database (PostgreSQL refuses a NUL in text with an error).
 */
const LINK_KEY = /^[A-Za-z0-9_]{1,40}$/;

export async function findLink(db: Db, owner: Principal, id: string): Promise<PaymentLink | undefined> {
  if (!LINK_KEY.test(id)) return undefined;
  return db
    .selectFrom('payment_links')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

export async function findBrandedLinkBySlug(db: Db, slug: string): Promise<BrandedLink | undefined> {
  if (!LINK_KEY.test(slug)) return undefined;
  return db
    .selectFrom('payment_links')
    .innerJoin('merchants', 'merchants.id', 'payment_links.merchant_id')
    .selectAll('payment_links')
    .select([
      'merchants.name as merchant_name',
      'merchants.email as merchant_email',
      'merchants.logo_url as merchant_logo_url',
      'merchants.brand_color as merchant_brand_color',
    ])
    .where('payment_links.slug', '=', slug)
    .executeTakeFirst();
}

/**
 * The link, locked until the transaction ends on PostgreSQL (SQLite has one writer at a time):
 * every session a limited link opens is decided under this lock, so two customers at once are
 * counted one after the other.
 */
export function lockLink(trx: Db, id: string): Promise<PaymentLink | undefined> {
  const query = trx.selectFrom('payment_links').selectAll().where('id', '=', id);
  return (isPostgres(trx) ? query.forUpdate() : query).executeTakeFirst();
}

/** The link's sessions still payable: each holds one use of a limited link. */
export async function countHolds(trx: Db, linkId: string, now: number): Promise<number> {
  const row = await trx
    .selectFrom('checkout_sessions')
    .select((eb) => eb.fn.countAll<string | number>().as('holds'))
    .where('payment_link_id', '=', linkId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.holds);
}

/** A pending session the link opened, still payable: the one a returning visitor is sent back to. */
export function findOpenLinkSession(db: Db, linkId: string, sessionId: string, now: number) {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where('payment_link_id', '=', linkId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Ends the visitor's pending session when nothing is being paid on it (no attempt in flight):
 * they came back to the link for another amount. It ends as cancelled; false when an attempt holds it.
 */
export async function endUnstartedSession(trx: Db, sessionId: string, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('checkout_sessions')
    .set({ status: 'failed', completed_at: now, updated_at: now })
    .where('id', '=', sessionId)
    .where('status', '=', 'pending')
    .where('pending_charge_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listLinks(
  db: Db,
  owner: Principal,
  page: number,
  perPage: number,
): Promise<{ rows: PaymentLink[]; total: number }> {
  const owned = db
    .selectFrom('payment_links')
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode);
  const [rows, count] = await Promise.all([
    owned
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    owned.select((eb) => eb.fn.countAll<string | number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The link's paid sessions, newest first. */
export function linkPayments(db: Db, linkId: string, limit: number): Promise<CheckoutSession[]> {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('payment_link_id', '=', linkId)
    .where('status', '=', 'success')
    .orderBy('completed_at', 'desc')
    .limit(limit)
    .execute();
}

export type LinkChanges = Partial<
  Pick<PaymentLinksTable, 'title' | 'description' | 'active' | 'amount_minor' | 'min_amount_minor' | 'currency'>
>;

/**
 * Changes the link; a change of its price (amount or currency) only while nothing was paid
 * through it, by the same statement, so a payment counted meanwhile keeps the price it was paid at.
 */
export async function updateLink(
  db: Db,
  linkId: string,
  changes: LinkChanges,
  now: number,
): Promise<PaymentLink | undefined> {
  const changesPrice =
    changes.amount_minor !== undefined || changes.min_amount_minor !== undefined || changes.currency !== undefined;
  let query = db
    .updateTable('payment_links')
    .set({ ...changes, updated_at: now })
    .where('id', '=', linkId);
  if (changesPrice) query = query.where('payments_count', '=', 0);
  return query.returningAll().executeTakeFirst();
}
