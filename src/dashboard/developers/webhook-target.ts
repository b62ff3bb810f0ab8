import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { emitEvent } from '../../events/event-repository.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import { ids } from '../../shared/ids.ts';
import { isHttpUrl } from '../../shared/urls.ts';
import { addressKind, refusalReason } from '../../webhooks/address-guard.ts';

/**
 * Why a webhook URL typed in the dashboard cannot be kept, or null when it can. The same URL rule
 * as `lipira merchant update --webhook-url` (an absolute http(s) URL with a plain host); on top,
 * a host written as an IP address is judged now, as the sender would judge it: never a private
 * address, and loopback only where the operator lets test-mode webhooks go there. A host name is
 * judged at every delivery, against what it then resolves to.
 */
export function webhookUrlProblem(url: string, config: Pick<Config, 'webhookAllowLoopback'>): string | null {
  if (!isHttpUrl(url))
    return 'The webhook URL must be an absolute http:// or https:// URL, such as https://shop.example.com/webhooks/lipira.';
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (addressKind(host) === null) return null;
  return refusalReason(host, { allowLoopback: config.webhookAllowLoopback }) === null
    ? null
    : `Webhooks cannot be sent to ${host}: it is not a public address.`;
}

/**
 * Queues a test event for the merchant's webhook URL through the same outbox as every event (so it
 * is signed, retried and logged like one). Its body says what it is and carries no payment:
 * `{"event_type":"webhook.test","mode":…,"test_id":…,"message":…,"created_at":…}`.
 */
export async function sendTestEvent(trx: Kysely<DB>, owner: Principal, now: number, timeZone: string): Promise<string> {
  const testId = ids.event();
  const payload = {
    event_type: 'webhook.test',
    mode: owner.mode,
    test_id: testId,
    message: 'A test event sent from the Lipira dashboard: nothing happened to any payment.',
    created_at: new Date(now).toISOString(),
  };
  await emitEvent(
    trx,
    { merchantId: owner.merchantId, mode: owner.mode, type: 'webhook.test', subjectId: testId, payload },
    now,
    timeZone,
  );
  return testId;
}
