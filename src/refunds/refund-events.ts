import type { Kysely } from 'kysely';
import { findSessionById } from '../core/session-repository.ts';
import type { DB } from '../db/schema.ts';
import { emitEvent } from '../events/event-repository.ts';
import type { Charge } from '../core/charge-repository.ts';
import { authorizationOf, refundedOf } from '../core/charge-views.ts';
import { toMajor } from '../shared/money.ts';
import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import { pendingReasonsView } from './pending-reasons.ts';
import type { Refund } from './refund-repository.ts';

/**
 * Emits `api.refund` for a merchant refund that ended, succeeded or failed, in the transaction
 * that recorded the end: flat like the payment webhooks (docs/integrate/api-reference.md#webhook-events), naming the refund, the
 * payment it gives back (`charge_id`, and `tx_ref` for a checkout payment), the customer (whom a
 * receipt goes to) and what is refunded of the payment now.
 */
export async function emitRefundOutcome(
  trx: Kysely<DB>,
  refund: Refund,
  charge: Charge,
  now: number,
  timeZone: string,
): Promise<void> {
  const session = charge.session_id ? await findSessionById(trx, charge.session_id) : undefined;
  const payload = {
    event_type: 'api.refund',
    refund_id: refund.refund_id,
    charge_id: charge.charge_id,
    chargeId: charge.charge_id,
    tx_ref: session?.tx_ref ?? null,
    reference: session?.reference ?? charge.ref_id,
    status: refund.status,
    failure_reason: refund.failure_reason,
    amount: toMajor(refund.amount_minor),
    currency: refund.currency,
    reason: refund.reason,
    pending_reasons: pendingReasonsView(refund.pending_reasons),
    trans_id: refund.trans_id,
    payment_amount: toMajor(charge.amount_minor),
    ...refundedOf(charge),
    mode: refund.mode,
    type: 'Refund',
    first_name: charge.first_name,
    last_name: charge.last_name,
    email: charge.email,
    customization: session ? { title: session.title, description: session.description, logo: session.logo } : null,
    authorization: authorizationOf(charge),
    created_at: formatTimestamp(refund.created_at),
    completed_at: formatNullableTimestamp(refund.completed_at),
    updated_at: formatTimestamp(now),
  };
  await emitEvent(
    trx,
    { merchantId: refund.merchant_id, mode: refund.mode, type: 'api.refund', subjectId: refund.id, payload },
    now,
    timeZone,
  );
}
