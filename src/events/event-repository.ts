import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { queueReceipts } from '../emails/email-outbox.ts';
import { findMerchant, type Merchant } from '../merchants/merchant-repository.ts';
import { isPostgres } from '../db/dialect.ts';
import { ids } from '../shared/ids.ts';
import type { NewEvent, StoredEvent } from './event-types.ts';
import { newDelivery, queueWebhook } from './delivery-repository.ts';

/**
 * Records an event and everything that must go out because of it: a webhook delivery when the
 * merchant has a webhook URL, and receipts for a successful payment or refund. Callers pass the
 * transaction of the state change, so all of it exists exactly when the change does, and a
 * crash can lose none of it. Receipts are written now, with their times in `timeZone`. A caller
 * that has read the merchant in this transaction passes it (`known`), and it is not read again;
 * then on PostgreSQL the event and its webhook delivery are one statement.
 */
export async function emitEvent(
  trx: Kysely<DB>,
  event: NewEvent,
  now: number,
  timeZone: string,
  known?: Merchant,
): Promise<void> {
  const stored: StoredEvent = { ...event, id: ids.event() };
  const row = {
    id: stored.id,
    merchant_id: event.merchantId,
    mode: event.mode,
    type: event.type,
    subject_id: event.subjectId,
    payload: JSON.stringify(event.payload),
    created_at: now,
  };
  const webhookUrl = (merchant: Merchant) =>
    merchant.webhook_url && merchant.webhooks_enabled === 1 ? merchant.webhook_url : null;
  const knownUrl = known && webhookUrl(known);
  let merchant: Merchant | undefined;
  if (knownUrl && isPostgres(trx)) {
    merchant = known;
    // A data-modifying CTE runs whether or not the statement reads it: the event, then its delivery.
    await trx
      .with('event', (db) => db.insertInto('events').values(row).returning('id'))
      .insertInto('webhook_deliveries')
      .values(newDelivery(stored, knownUrl, now))
      .execute();
  } else {
    await trx.insertInto('events').values(row).execute();
    merchant = known ?? (await findMerchant(trx, event.merchantId));
    if (!merchant) return;
    const url = webhookUrl(merchant);
    if (url) await queueWebhook(trx, stored, url, now);
  }
  const hasReceipts =
    event.type === 'checkout.payment' || event.type === 'api.charge.payment' || event.type === 'api.refund';
  if (hasReceipts && event.payload.status === 'success' && merchant.receipts_enabled === 1)
    await queueReceipts(trx, merchant, stored, now, timeZone);
}
