import type { Insertable, Kysely } from 'kysely';
import type { Config, LiveRoutes } from '../config.ts';
import type { Database } from '../db/database.ts';
import { liveNotSetUpMessage, takesLivePayments } from '../core/live-readiness.ts';
import type { Transact } from '../db/group-commit.ts';
import type { DB, LogsTable } from '../db/schema.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { toMinor } from '../shared/money.ts';
import { requestHash } from '../shared/request-hash.ts';
import * as repo from '../core/session-repository.ts';
import type { CheckoutSession } from '../core/session-repository.ts';
import type { Clock } from '../shared/clock.ts';
import { addLog, type LogEntry } from '../logs/log-repository.ts';
import type { Charge } from '../core/charge-repository.ts';

export type Generation = 'current' | 'legacy';

/** A create request after validation, the same for both generations. */
export interface SessionRequest {
  generation: Generation;
  tx_ref?: string | undefined;
  amount: number;
  currency: string;
  first_name: string;
  last_name?: string | undefined;
  email?: string | undefined;
  callback_url?: string | undefined;
  return_url?: string | undefined;
  customization?:
    { title?: string | undefined; description?: string | undefined; logo?: string | undefined } | undefined;
  meta?: Record<string, unknown> | undefined;
  /** The origin of the merchant page that created the session through the inline popup: the one that may frame it. */
  frameOrigin?: string | undefined;
}

export interface CheckoutDeps {
  db: Kysely<DB>;
  /** Where a create's writes commit: grouped with concurrent ones on SQLite. */
  transact: Transact;
  checkoutTtlMs: number;
  clock: Clock;
  /** The live methods the operator routed: a live session no routed method could pay is refused. */
  liveRoutes: LiveRoutes;
}

/** What the checkout's routes (the API's and the browser integrations') need, from the gateway's context. */
export interface CheckoutContext {
  config: Pick<Config, 'checkoutTtlMs' | 'liveRoutes'>;
  database: Pick<Database, 'db' | 'transact'>;
  clock: Clock;
}

export const checkoutDeps = ({ config, database, clock }: CheckoutContext): CheckoutDeps => ({
  db: database.db,
  transact: database.transact,
  clock,
  checkoutTtlMs: config.checkoutTtlMs,
  liveRoutes: config.liveRoutes,
});

/** Fresh ids can collide with a stored reference or token; a handful of tries is beyond enough. */
const MAX_ID_TRIES = 5;

/**
 * Creates a pending session, or answers a retry of the same request as the first time
 * (docs/integrate/api-reference.md#idempotency): same `tx_ref`, same parameters, still pending → the original session.
 */
export async function createSession(
  deps: CheckoutDeps,
  owner: Principal,
  request: SessionRequest,
): Promise<CheckoutSession> {
  const now = deps.clock.now();
  // Refused now rather than shown as a page whose Pay button fails: the shopper would learn last.
  if (owner.mode === 'live' && !takesLivePayments(deps.liveRoutes, request.currency))
    throw new ApiError('liveNotSetUp', liveNotSetUpMessage(request.currency));
  const txRef = request.tx_ref ?? ids.txRef();
  const requestHash = hashRequest(request, txRef);
  for (let attempt = 0; attempt < MAX_ID_TRIES; attempt++) {
    const session = newSession(owner, request, txRef, requestHash, now, deps.checkoutTtlMs);
    const log = creationLog(session, now);
    if (await repo.recordNewSession(deps.db, deps.transact, session, log)) return session;
    const existing = await repo.findSessionByTxRef(deps.db, owner, txRef);
    if (existing) {
      if (isReplayOf(existing, requestHash, now)) return existing;
      throw ApiError.field('tx_ref', 'The tx ref has already been taken.');
    }
  }
  throw new Error('could not allocate a unique checkout reference');
}

function isReplayOf(existing: CheckoutSession, requestHash: string, now: number): boolean {
  return existing.request_hash === requestHash && existing.status === 'pending' && existing.expires_at > now;
}

/** The pending session a create writes (exported for the bench's create floor, which writes the same rows). */
export function newSession(
  owner: Principal,
  request: SessionRequest,
  txRef: string,
  requestHash: string,
  now: number,
  ttlMs: number,
): CheckoutSession {
  return {
    id: ids.checkoutToken(now),
    merchant_id: owner.merchantId,
    mode: owner.mode,
    generation: request.generation,
    tx_ref: txRef,
    reference: ids.reference(),
    status: 'pending',
    amount_minor: toMinor(request.amount),
    currency: request.currency,
    first_name: request.first_name,
    last_name: request.last_name ?? null,
    email: request.email ?? null,
    callback_url: request.callback_url ?? null,
    return_url: request.return_url ?? null,
    title: request.customization?.title ?? null,
    description: request.customization?.description ?? null,
    logo: request.customization?.logo ?? null,
    meta: request.meta === undefined ? null : JSON.stringify(request.meta),
    request_hash: requestHash,
    attempts: 0,
    failed_attempts: 0,
    paid_charge_id: null,
    pending_charge_id: null,
    fee_minor: 0,
    expires_at: now + ttlMs,
    completed_at: null,
    created_at: now,
    updated_at: now,
    frame_origin: request.frameOrigin ?? null,
    payment_link_id: null,
  };
}

/** The log line written with a new session, in the same transaction. */
export function creationLog(session: CheckoutSession, now: number): Insertable<LogsTable> {
  return { owner_id: session.id, type: 'log', message: 'Checkout session created', created_at: now };
}

/** Everything that defines the payment: what a retry must repeat to be answered as the first. */
export function hashRequest(request: SessionRequest, txRef: string): string {
  const { generation, amount, currency, first_name, last_name, email, callback_url, return_url, customization, meta } =
    request;
  return requestHash({
    generation,
    txRef,
    amount,
    currency,
    first_name,
    last_name,
    email,
    callback_url,
    return_url,
    customization,
    meta,
  });
}

export interface VerifiedSession {
  session: CheckoutSession;
  logs: LogEntry[];
  /** The charge that paid the session, once it is paid. */
  payment: Charge | null;
}

export async function verifySession(deps: CheckoutDeps, owner: Principal, txRef: string): Promise<VerifiedSession> {
  const now = deps.clock.now();
  let found = await repo.findSessionToVerify(deps.db, owner, txRef);
  if (!found) throw new ApiError('transactionNotFound');
  if (isDue(found.session, now)) {
    // Read again whoever ended it: expiring adds a log, and a payment may have won the race.
    await expire(deps.db, found.session, now);
    found = (await repo.findSessionToVerify(deps.db, owner, txRef)) ?? found;
  }
  const { session, payment } = found;
  return { session, logs: session.logs, payment };
}

/** The session a verification reports on, failed first if it expired: all the legacy verification shows. */
export async function sessionToVerify(deps: CheckoutDeps, owner: Principal, txRef: string): Promise<CheckoutSession> {
  const now = deps.clock.now();
  const found = await repo.findSessionByTxRef(deps.db, owner, txRef);
  if (!found) throw new ApiError('transactionNotFound');
  return expireIfDue(deps.db, found, now);
}

/** A pending session past its expiry becomes `failed` the first time anyone looks at it. */
export async function expireIfDue(db: Kysely<DB>, session: CheckoutSession, now: number): Promise<CheckoutSession> {
  if (!isDue(session, now)) return session;
  await expire(db, session, now);
  return (await repo.findSessionById(db, session.id)) ?? session;
}

function isDue(session: CheckoutSession, now: number): boolean {
  return session.status === 'pending' && session.expires_at <= now;
}

/** Ends an expired session with its log, unless someone else ended it first. */
async function expire(db: Kysely<DB>, session: CheckoutSession, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await repo.markFailed(trx, session.id, now, { onlyIfExpired: true }))
      await addLog(trx, session.id, 'The payment link expired', now);
  });
}
