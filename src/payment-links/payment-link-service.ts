import type { Kysely } from 'kysely';
import { creationLog, hashRequest, newSession, type SessionRequest } from '../checkout/checkout-service.ts';
import { liveNotSetUpMessage, takesLivePayments } from '../core/live-readiness.ts';
import { insertSessionIfNew, type CheckoutSession } from '../core/session-repository.ts';
import type { LiveRoutes } from '../config.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Transact } from '../db/group-commit.ts';
import type { CustomerFieldSetting, DB } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { toMinor } from '../shared/money.ts';
import { isHttpUrl } from '../shared/urls.ts';
import * as repo from './payment-link-repository.ts';
import type { PaymentLink } from './payment-link-repository.ts';

export interface PaymentLinkDeps {
  db: Kysely<DB>;
  transact: Transact;
  clock: Clock;
  checkoutTtlMs: number;
  /** A live link no routed method could pay is refused when it is made, as a live session is. */
  liveRoutes: LiveRoutes;
}

export type CustomerField = 'name' | 'email' | 'phone';
export type CustomerFields = Record<CustomerField, CustomerFieldSetting>;
export const CUSTOMER_FIELDS: readonly CustomerField[] = ['name', 'email', 'phone'];
const NO_CUSTOMER_FIELDS: CustomerFields = { name: 'off', email: 'off', phone: 'off' };

/** A link as the API and the dashboard's form ask for it: amounts in major units, the expiry as a time. */
export interface LinkInput {
  title: string;
  description?: string | undefined;
  amount?: number | undefined;
  min_amount?: number | undefined;
  currency: 'MWK' | 'USD';
  reusable?: boolean | undefined;
  max_payments?: number | undefined;
  expires_at?: number | undefined;
  customer_fields?: Partial<CustomerFields> | undefined;
  redirect_url?: string | undefined;
  meta?: Record<string, unknown> | undefined;
}

/** Slugs and session tokens are random: a clash is beyond rare, and a handful of draws beyond enough. */
const MAX_ID_TRIES = 5;

/**
 * How long a session opened from a limited link (single-use or capped) stays payable, and so holds
 * one of its uses: short, so a customer who walks away does not keep the link from the next one
 * for the checkout's whole day (docs/decisions.md, "A limited payment link is held by its open sessions").
 */
export const LIMITED_LINK_HOLD_MS = 30 * 60_000;

/** What a caller writes in the transaction that makes the change (the dashboard's audit entry). */
export type Alongside = (trx: Kysely<DB>, link: PaymentLink) => Promise<void>;

export async function createLink(
  deps: PaymentLinkDeps,
  owner: Principal,
  input: LinkInput,
  alongside?: Alongside,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  checkLinkInput(input, now);
  if (owner.mode === 'live' && !takesLivePayments(deps.liveRoutes, input.currency))
    throw new ApiError('liveNotSetUp', liveNotSetUpMessage(input.currency));
  for (let attempt = 0; attempt < MAX_ID_TRIES; attempt++) {
    const link: PaymentLink = {
      id: ids.paymentLink(),
      merchant_id: owner.merchantId,
      mode: owner.mode,
      slug: ids.paymentLinkSlug(),
      title: input.title.trim(),
      description: input.description?.trim() || null,
      amount_minor: input.amount === undefined ? null : toMinor(input.amount),
      min_amount_minor: input.min_amount === undefined ? null : toMinor(input.min_amount),
      currency: input.currency,
      reusable: input.reusable === false ? 0 : 1,
      max_payments: input.max_payments ?? null,
      expires_at: input.expires_at ?? null,
      customer_fields: JSON.stringify({ ...NO_CUSTOMER_FIELDS, ...input.customer_fields }),
      redirect_url: input.redirect_url ?? null,
      meta: input.meta === undefined ? null : JSON.stringify(input.meta),
      active: 1,
      payments_count: 0,
      amount_collected_minor: 0,
      created_at: now,
      updated_at: now,
    };
    const made = await deps.transact(async (trx) => {
      if (!(await repo.insertLinkIfNew(trx, link))) return false;
      await alongside?.(trx, link);
      return true;
    });
    if (made) return link;
  }
  throw new Error('could not allocate a unique payment link slug');
}

/** What the schema cannot say: each refusal names its field. */
function checkLinkInput(input: LinkInput, now: number): void {
  if (input.title.trim() === '') throw ApiError.field('title', 'The title field is required.');
  if (input.amount !== undefined && input.min_amount !== undefined)
    throw ApiError.field('min_amount', 'The min amount field is prohibited when amount is present.');
  if (input.expires_at !== undefined && input.expires_at <= now)
    throw ApiError.field('expires_at', 'The expires at must be a date after now.');
  if (input.reusable === false && input.max_payments !== undefined && input.max_payments !== 1)
    throw ApiError.field('max_payments', 'A single-use link is paid once: the max payments must be 1 or left out.');
  if (input.redirect_url !== undefined && !isHttpUrl(input.redirect_url))
    throw ApiError.field('redirect_url', 'The redirect url must be a valid URL.');
}

export async function showLink(db: Kysely<DB>, owner: Principal, id: string): Promise<PaymentLink> {
  const link = await repo.findLink(db, owner, id);
  if (!link) throw new ApiError('routeNotFound', 'Payment link not found.');
  return link;
}

export interface LinkUpdate {
  title?: string | undefined;
  description?: string | null | undefined;
  active?: boolean | undefined;
  /** The price changes only until the link is first paid: a payment made is never of another price than its link shows. */
  amount?: number | null | undefined;
  currency?: 'MWK' | 'USD' | undefined;
}

export async function changeLink(
  deps: PaymentLinkDeps,
  owner: Principal,
  id: string,
  update: LinkUpdate,
  alongside?: Alongside,
): Promise<PaymentLink> {
  const link = await showLink(deps.db, owner, id);
  if (update.title !== undefined && update.title.trim() === '')
    throw ApiError.field('title', 'The title field is required.');
  const changes: repo.LinkChanges = {};
  if (update.title !== undefined) changes.title = update.title.trim();
  if (update.description !== undefined) changes.description = update.description?.trim() || null;
  if (update.active !== undefined) changes.active = update.active ? 1 : 0;
  if (update.amount !== undefined) changes.amount_minor = update.amount === null ? null : toMinor(update.amount);
  if (update.amount !== undefined && update.amount !== null) changes.min_amount_minor = null;
  if (update.currency !== undefined) changes.currency = update.currency;
  const changed = await deps.transact(async (trx) => {
    const updated = await repo.updateLink(trx, link.id, changes, deps.clock.now());
    if (updated) await alongside?.(trx, updated);
    return updated;
  });
  if (!changed) throw priceFixed(update);
  return changed;
}

/** The link was paid through (maybe a moment ago): its price stays the one it was paid at. */
const priceFixed = (update: LinkUpdate) =>
  ApiError.field(
    update.amount !== undefined ? 'amount' : 'currency',
    'The amount and currency of a link are fixed once it has been paid: make a new link.',
  );

export const customerFieldsOf = (link: PaymentLink): CustomerFields => ({
  ...NO_CUSTOMER_FIELDS,
  ...(JSON.parse(link.customer_fields) as Partial<CustomerFields>),
});

const isLimited = (link: PaymentLink) => link.reusable === 0 || link.max_payments !== null;
const usesOf = (link: PaymentLink) => (link.reusable === 0 ? 1 : (link.max_payments ?? Infinity));

/** Why a link cannot be paid now, whoever asks; null while it can. */
export type Unavailability = 'inactive' | 'expired' | 'used_up' | 'held';

export function unavailability(link: PaymentLink, now: number): Unavailability | null {
  if (link.active === 0) return 'inactive';
  if (link.expires_at !== null && link.expires_at <= now) return 'expired';
  if (link.payments_count >= usesOf(link)) return 'used_up';
  return null;
}

/** What a customer gave on the link's page, checked against what the link asks. */
export interface CustomerEntry {
  amountMinor: number;
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

export type Opening = { session: CheckoutSession } | { unavailable: Unavailability };

/**
 * Opens the checkout session a customer pays the link with, in one transaction under the link's
 * lock: the visitor's own pending session when it has one for the same amount (so a browser
 * cannot mint sessions by reloading), else a new one if the link can still be paid. A limited
 * link's open sessions each hold one of its uses; while they hold every use left, the next
 * customer is told the link is not available before any money is asked for.
 */
export async function openLinkSession(
  deps: PaymentLinkDeps,
  linkId: string,
  entry: CustomerEntry,
  returnUrl: string,
  visitorSessionId: string | null,
): Promise<Opening> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(deps, linkId, entry, returnUrl, visitorSessionId);
    } catch (error) {
      if (!(error instanceof SessionIdClash) || attempt === MAX_ID_TRIES) throw error;
    }
  }
}

/** A new session's random token or reference was taken: nothing was written, and the open is tried again. */
class SessionIdClash extends Error {}

async function openOnce(
  deps: PaymentLinkDeps,
  linkId: string,
  entry: CustomerEntry,
  returnUrl: string,
  visitorSessionId: string | null,
): Promise<Opening> {
  const now = deps.clock.now();
  return deps.transact(async (trx): Promise<Opening> => {
    const link = await repo.lockLink(trx, linkId);
    if (!link) return { unavailable: 'inactive' };
    const why = unavailability(link, now);
    if (why) return { unavailable: why };
    if (visitorSessionId) {
      const own = await repo.findOpenLinkSession(trx, link.id, visitorSessionId, now);
      if (own && own.amount_minor === entry.amountMinor) return { session: own };
      // Another amount: the session for the old one gives up its hold, unless a payment on it is under way.
      if (own && (await repo.endUnstartedSession(trx, own.id, now)))
        await addLog(trx, own.id, 'The customer went back to the payment link for another amount', now);
    }
    if (isLimited(link) && link.payments_count + (await repo.countHolds(trx, link.id, now)) >= usesOf(link))
      return { unavailable: 'held' };
    const session = linkSession(link, entry, returnUrl, now, deps.checkoutTtlMs);
    if (!(await insertSessionIfNew(trx, session, creationLog(session, now)))) throw new SessionIdClash();
    return { session };
  });
}

/** The ordinary checkout session a link opens: a generated tx_ref, the link's id in meta, its title as customization. */
function linkSession(
  link: PaymentLink,
  entry: CustomerEntry,
  returnUrl: string,
  now: number,
  checkoutTtlMs: number,
): CheckoutSession {
  const [firstName, ...lastNames] = (entry.name ?? '').trim().split(/\s+/);
  const meta: Record<string, unknown> = {
    ...(link.meta === null ? {} : (JSON.parse(link.meta) as Record<string, unknown>)),
    payment_link_id: link.id,
    ...(entry.phone ? { customer_phone: entry.phone } : {}),
  };
  const request: SessionRequest = {
    generation: 'current',
    amount: entry.amountMinor / 100,
    currency: link.currency,
    first_name: firstName || 'Customer',
    last_name: lastNames.length > 0 ? lastNames.join(' ') : undefined,
    email: entry.email,
    callback_url: link.redirect_url ?? undefined,
    return_url: returnUrl,
    customization: { title: link.title, description: link.description ?? undefined },
    meta,
  };
  const owner: Principal = { merchantId: link.merchant_id, mode: link.mode };
  const txRef = ids.txRef();
  const ttl = isLimited(link) ? Math.min(checkoutTtlMs, LIMITED_LINK_HOLD_MS) : checkoutTtlMs;
  return { ...newSession(owner, request, txRef, hashRequest(request, txRef), now, ttl), payment_link_id: link.id };
}

export const linkPayments = (db: Kysely<DB>, link: PaymentLink) => repo.linkPayments(db, link.id, 100);
