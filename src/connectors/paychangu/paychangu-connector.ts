import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CallbackVerdict, CollectRequest, Connector, IncomingCallback, Step, SyncRequest } from '../connector.ts';
import { exchange, type PaychanguEndpoint } from './paychangu-http.ts';
import {
  callbackSubject,
  collectReadRequest,
  collectRequest,
  FRACTION_REFUSED,
  isDuplicate,
  isNotFound,
  latestRefundsRequest,
  majorAmount,
  payoutReadRequests,
  payoutRequest,
  readStep,
  refundReadRequest,
  refundRequest,
  refundStepAmong,
  startStep,
  type WireRequest,
} from './paychangu-wire.ts';

export interface PaychanguOptions {
  /** PayChangu's API origin (`https://api.paychangu.com`), or another gateway speaking its API. */
  url: string;
  /** The operator's own merchant secret key at PayChangu. */
  secretKey: string;
  /** The webhook secret of that merchant account; null refuses every callback. */
  webhookSecret: string | null;
  timeoutMs: number;
}

/**
 * An upstream gateway speaking PayChangu's merchant API (docs/integrate/api-reference.md#paychangu-compatibility), used through the
 * operator's own merchant account there for the channels the operator has no direct acquirer
 * for. Every request carries our reference as its `charge_id`, so PayChangu answers a resend
 * with the record it already has; a record that has already ended is answered as a duplicate,
 * and its state is then read instead.
 */
export function paychanguConnector(options: PaychanguOptions): Connector {
  const endpoint: PaychanguEndpoint = { url: options.url, secretKey: options.secretKey, timeoutMs: options.timeoutMs };
  const send = (request: WireRequest) => exchange(endpoint, request);

  const sync = async ({ reference, method }: SyncRequest): Promise<Step> =>
    readStep(await send(collectReadRequest(reference, method)));

  const syncPayout = async ({ reference }: SyncRequest): Promise<Step> => {
    const [banksList, charges] = payoutReadRequests(reference);
    const answer = await send(banksList);
    return readStep(isNotFound(answer) ? await send(charges) : answer);
  };

  return {
    name: 'paychangu',

    async collect(request: CollectRequest) {
      const amount = majorAmount(request.amountMinor);
      if (amount === null) return { status: 'refused', reason: FRACTION_REFUSED };
      const answer = await send(collectRequest(request, amount));
      // A duplicate is our earlier request, already ended there: what PayChangu says of it now.
      if (isDuplicate(answer)) return sync({ reference: request.reference, operatorId: null, method: request.method });
      return startStep(answer, request.method === 'card' ? 'collect-card' : 'other');
    },

    sync,

    async refund(request) {
      const amount = majorAmount(request.amountMinor);
      if (amount === null) return { status: 'refused', reason: FRACTION_REFUSED };
      return startStep(await send(refundRequest(request, amount)), 'other');
    },

    async syncRefund({ reference, operatorId }) {
      if (operatorId) return readStep(await send(refundReadRequest(operatorId)));
      return refundStepAmong(await send(latestRefundsRequest), reference);
    },

    async payout(request) {
      const amount = majorAmount(request.amountMinor);
      if (amount === null) return { status: 'refused', reason: FRACTION_REFUSED };
      const answer = await send(payoutRequest(request, amount));
      if (isDuplicate(answer)) return syncPayout({ reference: request.reference, operatorId: null });
      return startStep(answer, 'other');
    },

    syncPayout,

    verifyCallback(callback: IncomingCallback): CallbackVerdict {
      if (options.webhookSecret === null)
        return { status: 'refused', reason: 'No PayChangu webhook secret is configured.' };
      const signature = headerOf(callback.headers, 'signature');
      if (!signature) return { status: 'refused', reason: 'The callback carries no Signature header.' };
      if (!signatureMatches(signature, callback.rawBody, options.webhookSecret))
        return { status: 'refused', reason: 'The callback signature does not match.' };
      return callbackSubject(callback.body);
    },
  };
}

function headerOf(headers: IncomingCallback['headers'], name: string): string | undefined {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
}

/** PayChangu's `Signature`: lowercase hex HMAC-SHA256 of the body's exact bytes, keyed with the webhook secret, compared in constant time. */
function signatureMatches(signature: string, rawBody: string, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = /^[0-9a-fA-F]{64}$/.test(signature.trim()) ? Buffer.from(signature.trim(), 'hex') : null;
  return given !== null && timingSafeEqual(given, expected);
}
