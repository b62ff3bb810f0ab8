// Verifies the webhooks Lipira sends. Plain JavaScript with no dependencies, so a merchant's
// server can import it from the package whatever it is written in (`import { verifyWebhook } from 'lipira'`).
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Checks a webhook's signature over the exact bytes received and returns the parsed payload.
 *
 * Either signature is accepted: the Standard Webhooks `webhook-signature` (over
 * `{webhook-id}.{webhook-timestamp}.{body}`) or PayChangu's `Signature` (hex HMAC-SHA256 of the
 * body). Whenever `webhook-timestamp` is present it must be within `toleranceSeconds` of now,
 * whichever signature matched, so a captured webhook cannot be replayed later.
 *
 * @param {string | Buffer | Uint8Array} rawBody the body exactly as received (not re-serialised JSON)
 * @param {Record<string, string | string[] | undefined> | Headers} headers the request headers
 * @param {string} secret the merchant's webhook secret (`whsec_…`)
 * @param {{ toleranceSeconds?: number, now?: number }} [options] replay window (default 300 s); `now` in ms for tests
 * @returns {Record<string, unknown>} the payload
 * @throws {WebhookVerificationError} when no signature matches or the timestamp is outside the window
 */
export function verifyWebhook(rawBody, headers, secret, options = {}) {
  const { toleranceSeconds = 300, now = Date.now() } = options;
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody);
  const header = headerReader(headers);
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');

  if (timestamp !== undefined) {
    const seconds = Number(timestamp);
    if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - seconds) > toleranceSeconds) {
      throw new WebhookVerificationError('The webhook timestamp is outside the allowed window.');
    }
  }
  const standard = id !== undefined && timestamp !== undefined && standardSignatureMatches(header('webhook-signature'), id, timestamp, body, secret);
  const legacy = !standard && legacySignatureMatches(header('signature'), body, secret);
  if (!standard && !legacy) throw new WebhookVerificationError('No webhook signature matches.');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON.');
  }
}

function standardSignatureMatches(value, id, timestamp, body, secret) {
  if (!value) return false;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  // The header may carry several space-separated `v1,<base64>` signatures (during a secret rotation).
  return value.split(' ').some((part) => {
    const [version, signature] = part.split(',');
    return version === 'v1' && signature !== undefined && sameBytes(Buffer.from(signature, 'base64'), expected);
  });
}

function legacySignatureMatches(value, body, secret) {
  if (!value || !/^[0-9a-fA-F]{64}$/.test(value.trim())) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return sameBytes(Buffer.from(value.trim(), 'hex'), expected);
}

function sameBytes(a, b) {
  return a.length === b.length && timingSafeEqual(a, b);
}

function headerReader(headers) {
  if (typeof headers?.get === 'function') return (name) => headers.get(name) ?? undefined;
  const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([key, value]) => [key.toLowerCase(), Array.isArray(value) ? value[0] : value]));
  return (name) => lower[name];
}
