// Rows the bench writes straight into the gateway's database, shaped as the gateway writes them:
// sessions as `newSession` and `recordNewSession` (src/checkout), events and deliveries as
// `emitEvent` and `queueWebhook` (src/events, src/webhooks). The ids and the request hash come from
// the gateway's own helpers, so lengths, alphabets and digests match what it would store.
import type { Insertable, Selectable } from 'kysely';
import type { CheckoutSession } from '../src/core/session-repository.ts';
import type { EventsTable, LogsTable } from '../src/db/schema.ts';
import type { Delivery } from '../src/events/delivery-repository.ts';
import { ids } from '../src/shared/ids.ts';
import { toMajor, toMinor } from '../src/shared/money.ts';
import { requestHash } from '../src/shared/request-hash.ts';
import { formatTimestamp } from '../src/shared/time.ts';
import { SESSION_REQUEST } from './requests.ts';

export type SessionRow = CheckoutSession;
export type LogRow = Insertable<LogsTable>;
export type EventRow = Selectable<EventsTable>;
export type DeliveryRow = Delivery;

/** A session with the log line the gateway writes beside it, in the same transaction. */
export interface NewSession {
  session: SessionRow;
  log: LogRow;
}

/** What every bench session shares: whose it is, and how long a session lives (the gateway's CHECKOUT_TTL). */
export interface SessionOwner {
  merchantId: string;
  ttlMs: number;
}

/** The pending session `POST /payment` with SESSION_REQUEST and `txRef` creates at `now`. */
export function newSession(owner: SessionOwner, txRef: string, now: number): NewSession {
  const { customization, ...fields } = SESSION_REQUEST;
  const session: SessionRow = {
    id: ids.checkoutToken(now),
    merchant_id: owner.merchantId,
    mode: 'test',
    generation: 'current',
    tx_ref: txRef,
    reference: ids.reference(),
    status: 'pending',
    amount_minor: toMinor(fields.amount),
    currency: fields.currency,
    first_name: fields.first_name,
    last_name: fields.last_name,
    email: fields.email,
    callback_url: fields.callback_url,
    return_url: fields.return_url,
    title: customization.title,
    description: customization.description,
    logo: null,
    meta: null,
    // The fields and order of `hashRequest` in checkout-service.ts: a replay of the seeding request must match.
    request_hash: requestHash({ generation: 'current', txRef, ...fields, customization, meta: undefined }),
    attempts: 0,
    failed_attempts: 0,
    paid_charge_id: null,
    pending_charge_id: null,
    fee_minor: 0,
    expires_at: now + owner.ttlMs,
    completed_at: null,
    created_at: now,
    updated_at: now,
    frame_origin: null,
    payment_link_id: null,
  };
  return { session, log: { owner_id: session.id, type: 'log', message: 'Checkout session created', created_at: now } };
}

/** The same session with fresh random keys: what the gateway retries with when its id or reference is taken. */
export function withFreshKeys({ session, log }: NewSession): NewSession {
  const id = ids.checkoutToken(session.created_at);
  return { session: { ...session, id, reference: ids.reference() }, log: { ...log, owner_id: id } };
}

/** A checkout the bench knows the page id and tx_ref of. */
export interface SeededCheckout {
  id: string;
  txRef: string;
}

/**
 * A successful `checkout.payment` for `checkout`, queued for delivery to `url` as `emitEvent`
 * would queue it: the payload has the fields of `emitCheckoutPayment`, the delivery is due now.
 */
export function paymentEvent(
  merchantId: string,
  checkout: SeededCheckout,
  url: string,
  now: number,
): { event: EventRow; delivery: DeliveryRow } {
  const chargeId = ids.attemptChargeId();
  const { customization, ...fields } = SESSION_REQUEST;
  const payload = {
    event_type: 'checkout.payment',
    charge_id: chargeId,
    chargeId,
    tx_ref: checkout.txRef,
    reference: ids.reference(),
    status: 'success',
    failure_reason: null,
    amount: toMajor(toMinor(fields.amount)),
    currency: fields.currency,
    // The fee at the default 3 %, in major units like the amount.
    charge: 30,
    mode: 'test',
    type: 'API Payment (Checkout)',
    first_name: fields.first_name,
    last_name: fields.last_name,
    email: fields.email,
    customization: { ...customization, logo: null },
    meta: null,
    authorization: {
      channel: 'Mobile Money',
      card_number: null,
      expiry: null,
      brand: null,
      provider: 'Airtel Money',
      mobile_number: '+265990xxxx00',
      completed_at: formatTimestamp(now),
    },
    number_of_attempts: 1,
    created_at: formatTimestamp(now),
    updated_at: formatTimestamp(now),
  };
  const event: EventRow = {
    id: ids.event(),
    merchant_id: merchantId,
    mode: 'test',
    type: 'checkout.payment',
    subject_id: checkout.id,
    payload: JSON.stringify(payload),
    created_at: now,
  };
  const delivery: DeliveryRow = {
    id: ids.delivery(),
    event_id: event.id,
    merchant_id: merchantId,
    mode: 'test',
    event_type: event.type,
    tx_ref: checkout.txRef,
    charge_id: chargeId,
    url,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  };
  return { event, delivery };
}
