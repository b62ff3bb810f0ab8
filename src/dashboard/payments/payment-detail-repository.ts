import type { Kysely, Selectable } from 'kysely';
import { REFERENCE_PATTERN } from '../../core/charge-schemas.ts';
import type { CheckoutSession } from '../../core/session-repository.ts';
import type { DB, EmailsTable, EventsTable, LogsTable } from '../../db/schema.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import type { Charge } from '../../core/charge-repository.ts';
import type { Attempt, Delivery } from '../../events/delivery-repository.ts';
import { asChargeRef } from '../../shared/ids.ts';

/**
 * The reads behind one payment's page: the payment (a checkout session, or a direct charge), and
 * everything that happened to it, gathered by the ids it and its attempts and refunds go by.
 * Every read is limited to the page's merchant and mode; the rest are reached only through ids
 * found that way.
 */

/** A payment as the page opens it: a checkout session with its attempts, or a direct charge alone. */
export type PaymentRecord =
  { kind: 'checkout'; session: CheckoutSession; attempts: Charge[] } | { kind: 'direct'; charge: Charge };

export type LogLine = Pick<Selectable<LogsTable>, 'owner_id' | 'message' | 'created_at'>;
export type EventRow = Selectable<EventsTable>;
export type EmailRow = Pick<
  Selectable<EmailsTable>,
  'id' | 'event_id' | 'kind' | 'recipient' | 'status' | 'created_at' | 'sent_at' | 'last_error'
>;
export type DeliveryWithAttempts = Delivery & { tries: Attempt[] };

export interface PaymentHistory {
  logs: LogLine[];
  events: EventRow[];
  deliveries: DeliveryWithAttempts[];
  emails: EmailRow[];
}

/**
 * The payment `id` names for this merchant in this mode: a checkout session by its id, or a direct
 * payment (not a session's attempt, not a payout) by its internal id or its `charge_id`.
 */
export async function findPaymentRecord(
  db: Kysely<DB>,
  owner: Principal,
  id: string,
): Promise<PaymentRecord | undefined> {
  if (!REFERENCE_PATTERN.test(id)) return undefined;
  const session = await db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
  if (session) {
    const attempts = await db
      .selectFrom('charges')
      .selectAll()
      .where('session_id', '=', session.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return { kind: 'checkout', session, attempts };
  }
  const charges = await db
    .selectFrom('charges')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .where('kind', '=', 'payment')
    .where('session_id', 'is', null)
    .where((eb) => eb.or([eb('id', '=', asChargeRef(id)), eb('charge_id', '=', id)]))
    .execute();
  const charge = charges.find((row) => row.id === id) ?? charges[0];
  return charge && { kind: 'direct', charge };
}

/**
 * What happened to a payment, oldest first: the log lines of its records (`owners`: the session,
 * its attempts), and the events about it or its refunds (`subjects`) with each event's webhook
 * deliveries, their tries, and the receipts it sent.
 */
export async function paymentHistory(
  db: Kysely<DB>,
  owner: Principal,
  owners: string[],
  subjects: string[],
): Promise<PaymentHistory> {
  const [logs, events] = await Promise.all([
    db
      .selectFrom('logs')
      .select(['owner_id', 'message', 'created_at'])
      .where('owner_id', 'in', owners)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('events')
      .selectAll()
      .where('merchant_id', '=', owner.merchantId)
      .where('mode', '=', owner.mode)
      .where('subject_id', 'in', subjects)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  if (events.length === 0) return { logs, events, deliveries: [], emails: [] };
  const eventIds = events.map((event) => event.id);
  const [deliveries, emails] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', 'in', eventIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('emails')
      .select(['id', 'event_id', 'kind', 'recipient', 'status', 'created_at', 'sent_at', 'last_error'])
      .where('event_id', 'in', eventIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  const tries =
    deliveries.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            deliveries.map((delivery) => delivery.id),
          )
          .orderBy('id')
          .execute();
  return {
    logs,
    events,
    emails,
    deliveries: deliveries.map((delivery) => ({
      ...delivery,
      tries: tries.filter((attempt) => attempt.delivery_id === delivery.id),
    })),
  };
}
