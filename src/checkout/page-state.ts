/**
 * What a checkout page has to show, decided from the session and its attempt as they are now:
 * the routes only map each state to a view or a redirect. The pages read attempts (charges) and
 * transfer accounts only through here.
 */
import type { PaymentDeps } from '../core/payment-deps.ts';
import {
  findPageSession,
  findPageSessionWithAttempt,
  type CheckoutSession,
  type PageSession,
} from '../core/session-repository.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { expireIfDue } from './checkout-service.ts';
import { sessionOutcome } from './session-outcome.ts';
import { findTransferAccount, type TransferAccount } from '../core/bank-transfer-repository.ts';
import { refreshCharge } from '../core/charge-completion.ts';
import { findCharge, type Charge } from '../core/charge-repository.ts';

/** Why a failed session ended, for the page that says so. */
export type EndedWhy = 'failed' | 'cancelled' | 'expired';

/** The session's own page (`GET /checkout/:id`). */
export type SessionPageState =
  | { page: 'unknown' }
  /** Pending: the payment form. */
  | { page: 'paying'; session: PageSession }
  /** Paid: the receipt, with the charge that paid when it is found. */
  | { page: 'paid'; session: PageSession; payment: Charge | undefined }
  /** Failed, cancelled or expired: why, and the way back to the shop. */
  | { page: 'ended'; session: PageSession; why: EndedWhy };

/** The cancel question's page (`GET /checkout/:id/cancel`): a pending session asks, with the attempt in flight if any. */
export type CancelPageState =
  | Exclude<SessionPageState, { page: 'paying' }>
  | { page: 'confirmCancel'; session: PageSession; inFlight: Charge | undefined };

/** An attempt's page (`GET /checkout/:id/attempts/:chargeId`). */
export type AttemptPageState =
  | { page: 'unknown' }
  /** The session has ended: the browser goes on to the merchant. */
  | { page: 'left'; session: PageSession }
  /** This attempt was the last failed try: what went wrong, then back to the shop by itself. */
  | { page: 'lastTryFailed'; session: PageSession; charge: Charge }
  /** This attempt failed with tries left: the payment page again, saying why. */
  | { page: 'failed'; session: PageSession; charge: Charge; triesLeft: number }
  /** Settled without ending the session, or set aside for another attempt: back to the payment page. */
  | { page: 'backToForm'; session: PageSession }
  /** A bank transfer waiting for the customer's transfer into its one-time account. */
  | { page: 'transfer'; session: PageSession; charge: Charge; account: TransferAccount }
  /** A card payment waiting for its one-time code. */
  | { page: 'otp'; session: PageSession; charge: Charge }
  /** A live card payment the acquirer's own 3-D Secure page confirms. */
  | { page: 'acquirer'; url: string }
  /** Waiting for the customer's phone, or for a card's issuer. */
  | { page: 'waiting'; session: PageSession; charge: Charge };

/** A session by its link, expired first if its time is up; null for a link we could never have issued or do not know. */
export async function loadSession(deps: PaymentDeps, id: string): Promise<PageSession | null> {
  // A link we could never have issued is unknown without asking (a NUL in it would even fail the query on PostgreSQL).
  if (!REFERENCE_PATTERN.test(id)) return null;
  const session = await findPageSession(deps.db, id);
  return session ? expiredIfDue(deps, session) : null;
}

async function expiredIfDue(deps: PaymentDeps, session: PageSession): Promise<PageSession> {
  const current = await expireIfDue(deps.db, session, deps.clock.now());
  return current === session ? session : { ...session, ...current };
}

export async function sessionPageState(deps: PaymentDeps, id: string): Promise<SessionPageState> {
  const session = await loadSession(deps, id);
  if (!session) return { page: 'unknown' };
  if (session.status === 'pending') return { page: 'paying', session };
  return endedState(deps, session);
}

export async function cancelPageState(deps: PaymentDeps, id: string): Promise<CancelPageState> {
  const session = await loadSession(deps, id);
  if (!session) return { page: 'unknown' };
  if (session.status !== 'pending') return endedState(deps, session);
  const inFlight = session.pending_charge_id ? await findCharge(deps.db, session.pending_charge_id) : undefined;
  return { page: 'confirmCancel', session, inFlight };
}

async function endedState(
  deps: PaymentDeps,
  session: PageSession,
): Promise<Exclude<SessionPageState, { page: 'paying' }>> {
  if (session.status === 'success') {
    const payment = session.paid_charge_id ? await findCharge(deps.db, session.paid_charge_id) : undefined;
    return { page: 'paid', session, payment };
  }
  return { page: 'ended', session, why: whyEnded(session, deps.maxFailedAttempts) };
}

/**
 * The attempt and its session as they are now, after asking the provider if it is time; at once
 * for a live card whose customer is back from the acquirer's page (`backFromAcquirer`): what the
 * browser's address says is never taken for an answer.
 */
export async function currentAttempt(
  deps: PaymentDeps,
  sessionId: string,
  chargeId: string,
  { backFromAcquirer } = { backFromAcquirer: false },
): Promise<{ session: PageSession; charge: Charge } | null> {
  // Links we could never have issued are unknown without asking, as in `loadSession`.
  if (!REFERENCE_PATTERN.test(sessionId) || !REFERENCE_PATTERN.test(chargeId)) return null;
  // The session and its attempt in one statement: while the customer waits, a status poll is this read alone.
  const read = await findPageSessionWithAttempt(deps.db, sessionId, chargeId);
  if (!read) return null;
  const session = await expiredIfDue(deps, read.session);
  const found = read.charge;
  if (!found) return null;
  const charge = await refreshCharge(deps, found, deps.clock.now(), {
    now: backFromAcquirer && found.next_action === 'redirect',
  });
  // The session read first is stale when this read ended the charge, or when the charge ended
  // between the two reads (the settler, another tab): the ending changed both at once.
  const stale = charge !== found || (charge.status !== 'pending' && session.status === 'pending');
  return { session: stale ? ((await findPageSession(deps.db, session.id)) ?? session) : session, charge };
}

export async function attemptPageState(
  deps: PaymentDeps,
  sessionId: string,
  chargeId: string,
): Promise<AttemptPageState> {
  const attempt = await currentAttempt(deps, sessionId, chargeId);
  if (!attempt) return { page: 'unknown' };
  const { session, charge } = attempt;
  if (session.status !== 'pending') {
    // Right after the last failed try the customer reads what happened on our page; any other ending goes straight on.
    const lastTry =
      session.status === 'failed' &&
      charge.status === 'failed' &&
      whyEnded(session, deps.maxFailedAttempts) === 'failed';
    return lastTry ? { page: 'lastTryFailed', session, charge } : { page: 'left', session };
  }
  if (charge.status === 'failed')
    return { page: 'failed', session, charge, triesLeft: deps.maxFailedAttempts - session.failed_attempts };
  if (charge.status !== 'pending' || setAside(session, charge)) return { page: 'backToForm', session };
  const account = charge.channel === 'bank_transfer' ? await findTransferAccount(deps.db, charge.id) : undefined;
  if (account) return { page: 'transfer', session, charge, account };
  if (charge.next_action === 'otp') return { page: 'otp', session, charge };
  const acquirerPage =
    charge.next_action === 'redirect' ? deps.providerFor(charge.mode).customerRedirect(charge) : null;
  if (acquirerPage) return { page: 'acquirer', url: acquirerPage };
  return { page: 'waiting', session, charge };
}

/** A mobile money request (or bank transfer) the customer set aside for another attempt: it no longer holds the session. */
export function setAside(session: CheckoutSession, charge: Charge): boolean {
  return charge.status === 'pending' && charge.next_action === 'approve' && session.pending_charge_id !== charge.id;
}

function whyEnded(session: CheckoutSession, maxFailedAttempts: number): EndedWhy {
  const outcome = sessionOutcome(session, maxFailedAttempts);
  return outcome === 'cancelled' || outcome === 'expired' ? outcome : 'failed';
}
