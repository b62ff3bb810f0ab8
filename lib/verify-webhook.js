// Verifies the webhooks Lipira sends. Plain JavaScript with no dependencies, so a merchant's
// server can import it from the package whatever it is written in (`import { verifyWebhook } from 'lipira'`).
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const STANDARD_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

/**
 * Checks a webhook's signature over the exact bytes received and returns the parsed payload.
 *
 * By default the Standard Webhooks headers are required: `webhook-signature` must match
 * `{webhook-id}.{webhook-timestamp}.{body}`, and `webhook-timestamp` must be within
 * `toleranceSeconds` of now. The timestamp is signed, so a captured webhook cannot be replayed
 * after the window, nor given a fresh timestamp.
 *
 * With `allowSignatureOnly: true`, a webhook carrying none of those headers is accepted on
 * PayChangu's `Signature` alone (hex HMAC-SHA256 of the body). That signature covers only the
 * body: such a webhook can be replayed at any time by whoever captured it. Headers that are
 * present are still checked as by default.
 *
 * @param {string | Buffer | Uint8Array} rawBody the body exactly as received (not re-serialised JSON)
 * @param {Record<string, string | string[] | undefined> | Headers} headers the request headers
 * During a roll of the webhook secret, pass both secrets (`[newSecret, oldSecret]`): a webhook
 * is accepted when a signature made with any of them matches. Lipira's own webhooks carry one
 * Standard Webhooks signature per secret while the roll's overlap runs, so one secret is enough
 * for them; the array is for switching your servers over at your own pace.
 *
 * @param {string | string[]} secret the merchant's webhook secret (`whsec_…`), or several, any of which may match
 * @param {{ toleranceSeconds?: number, allowSignatureOnly?: boolean, now?: number }} [options]
 *   replay window (default 300 s); accept a lone `Signature` (default false); `now` in ms for tests
 * @returns {Record<string, unknown>} the payload
 * @throws {WebhookVerificationError} when no accepted signature matches or the timestamp is outside the window
 */
export function verifyWebhook(rawBody, headers, secret, options = {}) {
  const { toleranceSeconds = 300, allowSignatureOnly = false, now = Date.now() } = options;
  if (typeof toleranceSeconds !== 'number' || !(toleranceSeconds >= 0))
    throw new TypeError('toleranceSeconds must be a number of seconds, 0 or more.');
  const secrets = Array.isArray(secret) ? secret : [secret];
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody);
  const header = headerReader(headers);

  if (STANDARD_HEADERS.every((name) => header(name) === undefined)) {
    if (!allowSignatureOnly) {
      throw new WebhookVerificationError(
        'The webhook has no webhook-id, webhook-timestamp and webhook-signature headers; a Signature alone is accepted only with { allowSignatureOnly: true }.',
      );
    }
    if (!secrets.some((one) => legacySignatureMatches(header('signature'), body, one)))
      throw new WebhookVerificationError('No webhook signature matches.');
    return parsed(body);
  }

  const [id, timestamp, signature] = STANDARD_HEADERS.map((name) => header(name));
  if (id === undefined || timestamp === undefined || signature === undefined) {
    throw new WebhookVerificationError(
      'The webhook carries only some of webhook-id, webhook-timestamp and webhook-signature; all three are needed.',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError('The webhook timestamp is outside the allowed window.');
  }
  if (!secrets.some((one) => standardSignatureMatches(signature, id, timestamp, body, one)))
    throw new WebhookVerificationError('No webhook signature matches.');
  return parsed(body);
}

function parsed(body) {
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
  const lower = Object.fromEntries(
    Object.entries(headers ?? {}).map(([key, value]) => [key.toLowerCase(), Array.isArray(value) ? value[0] : value]),
  );
  return (name) => lower[name];
}
