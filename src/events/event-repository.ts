import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { queueReceipts } from '../emails/email-outbox.ts';
import { findMerchant } from '../merchants/merchant-repository.ts';
import { ids } from '../shared/ids.ts';
import type { NewEvent, StoredEvent } from './event-types.ts';
import { queueWebhook } from './delivery-repository.ts';

/**
 * Records an event and everything that must go out because of it: a webhook delivery when the
 * merchant has a webhook URL, and receipts for a successful payment or refund. Callers pass the
 * transaction of the state change, so all of it exists exactly when the change does, and a
 * crash can lose none of it. Receipts are written now, with their times in `timeZone`.
 */
export async function emitEvent(trx: Kysely<DB>, event: NewEvent, now: number, timeZone: string): Promise<void> {
  const stored: StoredEvent = { ...event, id: ids.event() };
  await trx
    .insertInto('events')
    .values({
      id: stored.id,
      merchant_id: event.merchantId,
      mode: event.mode,
      type: event.type,
      subject_id: event.subjectId,
      payload: JSON.stringify(event.payload),
      created_at: now,
    })
    .execute();
  const merchant = await findMerchant(trx, event.merchantId);
  if (!merchant) return;
  if (merchant.webhook_url && merchant.webhooks_enabled === 1)
    await queueWebhook(trx, stored, merchant.webhook_url, now);
  const hasReceipts =
    event.type === 'checkout.payment' || event.type === 'api.charge.payment' || event.type === 'api.refund';
  if (hasReceipts && event.payload.status === 'success' && merchant.receipts_enabled === 1)
    await queueReceipts(trx, merchant, stored, now, timeZone);
}
