import type { Insertable, Kysely } from 'kysely';
import type { DB, EmailsTable } from '../db/schema.ts';
import type { StoredEvent } from '../events/event-types.ts';
import type { Merchant } from '../merchants/merchant-repository.ts';
import { ids } from '../shared/ids.ts';
import { insertEmails } from './email-repository.ts';
import { composeReceipt, paymentFacts, type ReceiptKind } from './receipt-email.ts';

/**
 * Queues the merchant's and (when an address was given) the customer's receipt for a
 * successful payment event, in the caller's transaction. The message is composed now and
 * kept in the row, so it says what was true when the payment succeeded, and a retry sends
 * the very same text (its time in the gateway's `timeZone`). The unique (event_id, kind) makes
 * each receipt exist once.
 */
export async function queueReceipts(trx: Kysely<DB>, merchant: Merchant, event: StoredEvent, now: number, timeZone: string): Promise<void> {
  if (merchant.receipts_enabled !== 1 || event.payload.status !== 'success') return;
  const facts = paymentFacts(merchant.name, event.payload, now, timeZone);
  const customerEmail = typeof event.payload.email === 'string' ? event.payload.email.trim() : '';
  const recipients: Array<[ReceiptKind, string]> = [['merchant_receipt', merchant.email]];
  if (customerEmail) recipients.push(['customer_receipt', customerEmail]);
  await insertEmails(
    trx,
    recipients.map(([kind, recipient]): Insertable<EmailsTable> => {
      const { subject, text, html } = composeReceipt(kind, facts);
      return {
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
      };
    }),
  );
}
