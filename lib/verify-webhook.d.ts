export declare class WebhookVerificationError extends Error {}

/**
 * Checks a Lipira webhook's signature (Standard Webhooks `webhook-signature` or PayChangu's
 * `Signature`) over the exact body bytes, enforces the replay window when `webhook-timestamp`
 * is present, and returns the parsed payload. Throws WebhookVerificationError otherwise.
 */
export declare function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
  options?: { toleranceSeconds?: number; now?: number },
): Record<string, unknown>;
