import type { Kysely } from 'kysely';
import { expireIfDue, verifySession, type CheckoutDeps, type VerifiedSession } from '../checkout/checkout-service.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { bringExpiryForward, findSessionByTxRef } from '../core/session-repository.ts';
import type { DB } from '../db/schema.ts';
import { bringRetryForward, findDelivery, type Delivery } from '../events/delivery-repository.ts';
import { settleCollections } from '../ledger/ledger-service.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';

/**
 * What time brings, brought now: each helper here makes a waiting record due and lets the code
 * that acts on due records act, so nothing happens that the passing of time would not do.
 */

/**
 * A pending checkout session's time runs out now: its expiry is moved to now and the session is
 * expired as any read of a session past its time expires it (`expireIfDue`), which the page, the
 * verification and an attempt then see. Answers the session as its verification shows it.
 */
export async function expireSessionNow(deps: CheckoutDeps, owner: Principal, txRef: string): Promise<VerifiedSession> {
  const now = deps.clock.now();
  const session = REFERENCE_PATTERN.test(txRef) ? await findSessionByTxRef(deps.db, owner, txRef) : undefined;
  if (!session) throw new ApiError('transactionNotFound');
  if (session.status !== 'pending')
    throw new ApiError('wrongState', `This session has already ended (${session.status}): only a pending one expires.`);
  await bringExpiryForward(deps.db, session.id, now);
  const ended = await expireIfDue(deps.db, { ...session, expires_at: Math.min(session.expires_at, now) }, now);
  // A payment that won the race ended it first: the session was paid, not expired.
  if (ended.status === 'success')
    throw new ApiError(
      'wrongState',
      'This session was paid while it was being expired: it has already ended (success).',
    );
  return verifySession(deps, owner, txRef);
}

/**
 * Settles the merchant's test collections now, as the settlement worker does when the test
 * settlement interval (`TEST_SETTLEMENT`) comes round, through the same `settleCollections`, for
 * this merchant only: another merchant's money waits for its own time. Answers how many balances
 * (one per currency) moved.
 */
export function settleNow(db: Kysely<DB>, owner: Principal, now: number): Promise<number> {
  return settleCollections(db, now, owner.mode, owner.merchantId);
}

/**
 * A webhook delivery waiting for its next try is made due now, and the webhook worker (woken by
 * the work trigger, as for any delivery that becomes due) sends it, signs it and records the try
 * as it would have at its time. A delivery that is no longer waiting (delivered, or failed after
 * its last try) is for `redeliver`; one being sent now is left to finish.
 */
export async function retryDeliveryNow(db: Kysely<DB>, owner: Principal, id: string, now: number): Promise<Delivery> {
  const delivery = REFERENCE_PATTERN.test(id) ? await findDelivery(db, owner, id) : undefined;
  if (!delivery) throw new ApiError('deliveryNotFound');
  if (delivery.status !== 'pending')
    throw new ApiError(
      'wrongState',
      `This delivery is ${delivery.status}, not waiting for a retry: send it again with POST /webhooks/deliveries/${id}/redeliver.`,
    );
  if (delivery.locked_until !== null && delivery.locked_until > now)
    throw new ApiError('wrongState', 'This delivery is being sent now: its try will be recorded in a moment.');
  if (!(await bringRetryForward(db, delivery.id, now))) return delivery;
  return { ...delivery, next_attempt_at: now, updated_at: now };
}
