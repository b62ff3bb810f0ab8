import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { emitEvent } from '../events/event-repository.ts';
import type { Charge } from '../core/charge-repository.ts';
import { authorizationOf } from '../core/charge-views.ts';
import { toMajor } from '../shared/money.ts';
import { formatTimestamp } from '../shared/time.ts';
import type { CheckoutSession } from '../core/session-repository.ts';
import type { Merchant } from '../merchants/merchant-repository.ts';

/**
 * Emits `checkout.payment` for an attempt that ended (docs/integrate/api-reference.md#webhook-events): flat, with the session's
 * reference and the attempt's charge id, in the transaction that recorded the outcome.
 */
export async function emitCheckoutPayment(
  trx: Kysely<DB>,
  session: CheckoutSession,
  charge: Charge,
  now: number,
  timeZone: string,
  merchant?: Merchant,
): Promise<void> {
  const payload = {
    event_type: 'checkout.payment',
    charge_id: charge.charge_id,
    chargeId: charge.charge_id,
    tx_ref: session.tx_ref,
    reference: session.reference,
    status: charge.status,
    failure_reason: charge.failure_reason,
    amount: toMajor(session.amount_minor),
    currency: session.currency,
    charge: toMajor(charge.fee_minor),
    mode: session.mode,
    type: 'API Payment (Checkout)',
    first_name: session.first_name,
    last_name: session.last_name,
    email: session.email,
    customization: { title: session.title, description: session.description, logo: session.logo },
    meta: session.meta === null ? null : (JSON.parse(session.meta) as unknown),
    authorization: authorizationOf(charge),
    number_of_attempts: session.attempts,
    created_at: formatTimestamp(session.created_at),
    updated_at: formatTimestamp(now),
  };
  await emitEvent(
    trx,
    { merchantId: session.merchant_id, mode: session.mode, type: 'checkout.payment', subjectId: session.id, payload },
    now,
    timeZone,
    merchant,
  );
}
