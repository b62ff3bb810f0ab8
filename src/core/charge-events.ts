import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { emitEvent } from '../events/event-repository.ts';
import { formatTimestamp } from '../shared/time.ts';
import type { Charge } from './charge-repository.ts';
import { authorizationOf, chargeRecord, eventTypeOf } from './charge-views.ts';

/**
 * Emits `api.charge.payment` or `api.payout` for a direct charge or payout that ended
 * (docs/integrate/api-reference.md#webhook-events): flat, in the transaction that recorded the outcome (`timeZone`: its receipts' times), with
 * the fields its kind adds (`extra`: a bank payout's recipient).
 */
export async function emitChargeOutcome(
  trx: Kysely<DB>,
  charge: Charge,
  now: number,
  timeZone: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const record = chargeRecord(charge);
  const type = eventTypeOf(charge);
  const payload = {
    event_type: type,
    charge_id: charge.charge_id,
    chargeId: charge.charge_id,
    reference: charge.ref_id,
    status: charge.status,
    failure_reason: charge.failure_reason,
    amount: record.amount,
    currency: charge.currency,
    charge: charge.fee_minor / 100,
    mode: charge.mode,
    type: record.type,
    first_name: record.first_name,
    last_name: record.last_name,
    email: record.email,
    mobile: charge.mobile,
    mobile_money: record.mobile_money,
    authorization: authorizationOf(charge),
    created_at: formatTimestamp(charge.created_at),
    updated_at: formatTimestamp(now),
    ...extra,
  };
  await emitEvent(
    trx,
    { merchantId: charge.merchant_id, mode: charge.mode, type, subjectId: charge.id, payload },
    now,
    timeZone,
  );
}
