import { createHmac } from 'node:crypto';

/**
 * The headers that let a receiver trust a webhook (docs/integrate/api-reference.md#webhook-signatures):
 * - `Signature`: lowercase hex HMAC-SHA256 of the body, keyed with the webhook secret as text,
 *   which is what PayChangu integrations verify;
 * - Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature`
 *   (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`), keyed as that standard keys
 *   `whsec_` secrets: with the base64-decoded part after the prefix. The timestamp lets
 *   receivers refuse replays.
 */
export function signWebhook(
  body: string,
  secret: string,
  messageId: string,
  timestampSeconds: number,
): Record<string, string> {
  return {
    signature: createHmac('sha256', secret).update(body).digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`,
  };
}

export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}
