export declare class WebhookVerificationError extends Error {}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /**
   * Accept a webhook that carries only PayChangu's `Signature` (no Standard Webhooks headers).
   * Default false. `Signature` covers the body alone, so such a webhook can be replayed at any
   * time by whoever captured it: turn this on only for senders that cannot sign a timestamp.
   */
  allowSignatureOnly?: boolean;
  /** The current time in milliseconds, for tests. */
  now?: number;
}

/**
 * Checks a Lipira webhook over the exact body bytes and returns the parsed payload. By default
 * the Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature` must be present
 * and valid, with the timestamp within `toleranceSeconds`; a lone `Signature` is accepted only
 * with `allowSignatureOnly`. Throws WebhookVerificationError otherwise. `secret` may be several
 * secrets (during a roll, the new and the old): a signature made with any of them is accepted.
 */
export declare function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string | readonly string[],
  options?: VerifyWebhookOptions,
): Record<string, unknown>;
