import type { Insertable, Kysely } from 'kysely';
import type { DB, EmailsTable } from '../db/schema.ts';
import type { StoredEvent } from '../events/event-types.ts';
import type { Merchant } from '../merchants/merchant-repository.ts';
import { ids } from '../shared/ids.ts';
import { insertEmails } from './email-repository.ts';
import {
  brandOf,
  composeReceipt,
  composeRefundReceipt,
  paymentFacts,
  refundFacts,
  type ComposedEmail,
  type ReceiptKind,
} from './receipt-email.ts';

/** The merchant's and the customer's receipt of an event, composed. */
interface Receipts {
  merchant: [ReceiptKind, ComposedEmail];
  customer: [ReceiptKind, ComposedEmail];
}

function receiptsOf(merchant: Merchant, event: StoredEvent, now: number, timeZone: string): Receipts {
  const brand = brandOf(merchant, event.payload);
  if (event.type === 'api.refund') {
    const facts = refundFacts(merchant.name, event.payload, now, timeZone);
    return {
      merchant: ['merchant_refund_receipt', composeRefundReceipt('merchant_refund_receipt', facts, brand)],
      customer: ['customer_refund_receipt', composeRefundReceipt('customer_refund_receipt', facts, brand)],
    };
  }
  const facts = paymentFacts(merchant.name, event.payload, now, timeZone);
  return {
    merchant: ['merchant_receipt', composeReceipt('merchant_receipt', facts, brand)],
    customer: ['customer_receipt', composeReceipt('customer_receipt', facts, brand)],
  };
}

/**
 * Queues the merchant's and (when an address was given) the customer's receipt for a successful
 * payment or refund event, in the caller's transaction. The message is composed now and kept in
 * the row, so it says what was true when the payment or refund succeeded, and a retry sends the
 * very same text (its time in the gateway's `timeZone`). The unique (event_id, kind) makes each
 * receipt exist once.
 */
export async function queueReceipts(
  trx: Kysely<DB>,
  merchant: Merchant,
  event: StoredEvent,
  now: number,
  timeZone: string,
): Promise<void> {
  if (merchant.receipts_enabled !== 1 || event.payload.status !== 'success') return;
  const receipts = receiptsOf(merchant, event, now, timeZone);
  const customerEmail = typeof event.payload.email === 'string' ? event.payload.email.trim() : '';
  const recipients: Array<[[ReceiptKind, ComposedEmail], string]> = [[receipts.merchant, merchant.email]];
  if (customerEmail) recipients.push([receipts.customer, customerEmail]);
  await insertEmails(
    trx,
    recipients.map(([[kind, { subject, text, html }], recipient]): Insertable<EmailsTable> => ({
      id: ids.email(),
      event_id: event.id,
      merchant_id: merchant.id,
      kind,
      recipient,
      subject,
      text_body: text,
      html_body: html,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      locked_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    })),
  );
}
