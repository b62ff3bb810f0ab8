import type { LogEntry } from '../logs/log-repository.ts';
import { CHANNEL_NAMES, describeAuthorization } from '../shared/payment-methods.ts';
import { OPERATOR_NAMES } from '../shared/phone.ts';
import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import type { Charge } from './charge-repository.ts';
import { operatorByCode } from './operators.ts';

/** How a charge was paid, as verification and webhooks show it (never more than masked numbers). */
export function authorizationOf(charge: Charge) {
  return {
    channel: CHANNEL_NAMES[charge.channel],
    card_number: charge.card_number,
    expiry: charge.card_expiry,
    brand: charge.card_brand,
    provider: charge.operator ? OPERATOR_NAMES[charge.operator] : null,
    mobile_number: charge.mobile,
    completed_at: formatNullableTimestamp(charge.completed_at),
  };
}

export type AuthorizationView = ReturnType<typeof authorizationOf>;

export function describeMethod(charge: Charge): string {
  return describeAuthorization(authorizationOf(charge));
}

/**
 * How much of a payment has been given back (refunds pending or done), and whether that is all of
 * it (`full`), some (`partial`) or nothing (`null`). The payment's `status` stays `success`.
 */
export function refundedOf(charge: Pick<Charge, 'amount_minor' | 'refunded_minor'> | null) {
  const refunded = charge?.refunded_minor ?? 0;
  return {
    refunded_amount: refunded / 100,
    refund_status: refunded === 0 ? null : refunded >= charge!.amount_minor ? ('full' as const) : ('partial' as const),
  };
}

/** `checkout.payment`, `api.charge.payment` or `api.payout`: what a charge's events and records are called. */
export function eventTypeOf(charge: Charge): 'checkout.payment' | 'api.charge.payment' | 'api.payout' {
  if (charge.kind === 'payout') return 'api.payout';
  return charge.session_id ? 'checkout.payment' : 'api.charge.payment';
}

const decimalText = (minor: number) => (minor / 100).toFixed(2);

/** The record fields every mobile money route shows (docs/integrate/api-reference.md#charge-records), for charges and payouts alike. */
function commonRecord(charge: Charge) {
  const payout = charge.kind === 'payout';
  return {
    amount: charge.amount_minor / 100,
    charge_id: charge.charge_id,
    ref_id: charge.ref_id,
    trans_id: charge.trans_id,
    // Payout records carry no customer (docs/integrate/api-reference.md#charge-records).
    first_name: payout ? null : charge.first_name,
    last_name: payout ? null : charge.last_name,
    email: payout ? null : charge.email,
    status: charge.status,
    mobile: charge.mobile,
    attempts: charge.attempts,
    currency: charge.currency,
    mode: charge.mode === 'test' ? 'sandbox' : 'live',
    created_at: formatTimestamp(charge.created_at),
    completed_at: formatNullableTimestamp(charge.completed_at),
    mobile_money: charge.operator
      ? { name: OPERATOR_NAMES[charge.operator], ref_id: operatorByCode(charge.operator).ref_id, country: 'Malawi' }
      : null,
  };
}

function typedParts(charge: Charge) {
  return {
    type: charge.type ?? 'Direct API Payment',
    event_type: eventTypeOf(charge),
    transaction_charges: { currency: charge.currency, amount: decimalText(charge.fee_minor) },
  };
}

// The records below are assembled with Object.assign rather than spreads: spreading a record of
// fifteen fields into another object took V8's slow path, about 3 µs a verification.

/** What initialize answers: the record with its type and fee. */
export function chargeRecord(charge: Charge) {
  return Object.assign(commonRecord(charge), typedParts(charge));
}

/** Verification: the record with how it was paid, how much of it was refunded, and what happened (docs/integrate/api-reference.md#verification-and-details). */
export function verifyRecord(charge: Charge, logs: LogEntry[]) {
  return Object.assign(chargeRecord(charge), refundedOf(charge), {
    authorization: authorizationOf(charge),
    logs: logViews(logs),
  });
}

/** A record's activity log, as its verification and details show it. */
export function logViews(logs: LogEntry[]) {
  return logs.map((log) => ({ type: log.type, message: log.message, created_at: formatTimestamp(log.created_at) }));
}

/**
 * Details: everything verification shows, for charges and payouts alike (clients build their
 * record from it with `type` required), plus `trace_id`, which PayChangu shows only here. Lipira
 * has no trace id of its own yet, so it is null.
 */
export function detailsRecord(charge: Charge, logs: LogEntry[]) {
  return Object.assign(verifyRecord(charge, logs), { trace_id: null });
}
