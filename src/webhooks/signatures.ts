import { createHmac } from 'node:crypto';

/**
 * The headers that let a receiver trust a webhook (docs/integrate/api-reference.md#webhook-signatures),
 * signed with each of `secrets`, newest first (two while a roll's overlap runs, else one):
 * - `Signature`: lowercase hex HMAC-SHA256 of the body, keyed with the newest secret as text,
 *   which is what PayChangu integrations verify. It holds one value, which such integrations
 *   compare whole, so it is never signed with more than one secret: from a roll on, the new one
 *   (docs/decisions.md#2026-11-28--webhook-secrets-roll-per-mode-with-an-overlap);
 * - Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature`
 *   (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`), keyed as that standard keys
 *   `whsec_` secrets: with the base64-decoded part after the prefix; one space-separated
 *   signature per secret, of which the standard's receivers accept any. The timestamp lets
 *   receivers refuse replays.
 */
export function signWebhook(
  body: string,
  secrets: readonly [string, ...string[]],
  messageId: string,
  timestampSeconds: number,
): Record<string, string> {
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return {
    signature: createHmac('sha256', secrets[0]).update(body).digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((secret) => `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(signed).digest('base64')}`)
      .join(' '),
  };
}

export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}
