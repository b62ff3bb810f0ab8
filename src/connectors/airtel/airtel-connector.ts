import { constants, createHmac, publicEncrypt, timingSafeEqual } from 'node:crypto';
import { toMajor } from '../../shared/money.ts';
import type { MalawiMobile } from '../../shared/phone.ts';
import type { Connector, RefundRequest, RefundSyncRequest, Step } from '../connector.ts';
import { airtelCall } from './airtel-http.ts';
import { tokenCache } from './airtel-token.ts';
import {
  callbackHashedTexts,
  disbursementEnquiry,
  paymentEnquiry,
  readCallback,
  refundEnquiry,
  requestDisbursement,
  requestPayment,
  requestRefund,
  requestToken,
} from './airtel-wire.ts';

export interface AirtelOptions {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Airtel's country and currency codes for the account: `MW`, `MWK`. */
  country: string;
  currency: string;
  /** The disbursement PIN and Airtel's public key to encrypt it with; payouts are refused without them. */
  disbursementPin: string | null;
  publicKeyPem: string | null;
  /** The private key of Airtel's callback authentication; when set, a callback without its hash is refused. */
  callbackSecret: string | null;
  timeoutMs: number;
}

/**
 * Airtel Money Open API: collections by USSD push, refunds (of a whole collection through
 * Airtel's refund API, of part of one as a disbursement to the number that paid), and B2C
 * disbursements to Airtel wallets. Every request goes once; an answer that does not say how it
 * went leaves the record pending for the settler's `sync`.
 */
export function airtelConnector(options: AirtelOptions): Connector {
  const tokens = tokenCache(() => requestToken(options));
  const call = airtelCall(options, tokens);
  const { country, currency } = options;

  /** B2C to an Airtel wallet, under `reference` as Airtel's transaction id: a payout, or part of a payment given back. */
  async function disburse(request: { reference: string; mobile: MalawiMobile; amountMinor: number }): Promise<Step> {
    if (request.mobile.operator !== 'airtel') return refused('Airtel Money pays out only to Airtel Money wallets.');
    const encryptedPin = encryptPin(options);
    if (!encryptedPin)
      return refused(
        "Airtel Money payouts are not configured: the disbursement PIN or Airtel's public key is missing or unreadable.",
      );
    return requestDisbursement(call, {
      reference: request.reference,
      msisdn: localNumber(request.mobile),
      amount: toMajor(request.amountMinor),
      encryptedPin,
    });
  }

  return {
    name: 'airtel',

    async collect(request) {
      if (request.method !== 'mobile_money' || request.mobile.operator !== 'airtel')
        return refused('Airtel Money collects only from Airtel Money wallets.');
      if (request.currency !== currency) return refused(`Airtel Money collects only ${currency} on this account.`);
      return requestPayment(call, {
        reference: request.reference,
        msisdn: localNumber(request.mobile),
        amount: toMajor(request.amountMinor),
        country,
        currency,
      });
    },

    // A collection Airtel says it has no record of stays pending: the push may still be on its
    // way into Airtel's books (its enquiry lags the request), and calling it failed while the
    // customer then approves would take their money for a failed charge. The settler's deadline
    // and review list decide what becomes of a charge Airtel never learns of.
    sync: (request) => paymentEnquiry(call, request.reference),

    // Airtel's refund API reverses a whole payment and takes no amount: part of one goes back to
    // the number that paid as a disbursement, under the refund's own reference as its transaction
    // id, so that Airtel takes it once however often it is sent and its enquiry finds it.
    async refund(request) {
      if (isPartial(request)) {
        const { payer } = request.charge;
        if (!payer)
          return refused(
            'Airtel Money gives back part of a payment to the number that paid it, and this payment has no number kept: refund the whole payment instead.',
          );
        return disburse({ reference: request.reference, mobile: payer, amountMinor: request.amountMinor });
      }
      if (!request.charge.operatorId)
        return refused('Airtel Money cannot refund a payment whose Airtel Money id was never received.');
      return requestRefund(call, request.charge.operatorId);
    },

    // Airtel gives a whole refund no id of its own and no enquiry: it is seen in the payment's
    // enquiry (by our charge reference) as TR, reversed. Part of a payment went as a disbursement
    // under the refund's reference, and is asked about as one.
    syncRefund: (request) =>
      isPartial(request) ? disbursementEnquiry(call, request.reference) : refundEnquiry(call, request.charge.reference),

    async payout(request) {
      if (request.method !== 'mobile_money') return refused('Airtel Money pays out only to Airtel Money wallets.');
      if (request.currency !== currency) return refused(`Airtel Money pays out only ${currency} on this account.`);
      return disburse(request);
    },

    // As for `sync`, a disbursement Airtel does not know of stays pending.
    syncPayout: (request) => disbursementEnquiry(call, request.reference),

    verifyCallback(callback) {
      const parsed = readCallback(callback.body);
      if (!parsed) return { status: 'refused', reason: 'not an Airtel Money callback' };
      if (
        options.callbackSecret !== null &&
        !hashMatches(options.callbackSecret, parsed.hash, callbackHashedTexts(parsed))
      ) {
        return {
          status: 'refused',
          reason: parsed.hash === undefined ? 'the callback has no hash' : 'the callback hash does not match',
        };
      }
      return { status: 'accepted', flow: 'collect', reference: parsed.transaction.id };
    },
  };
}

/** A refund of less than the whole payment (also the rest of one already refunded in part). */
const isPartial = (request: Pick<RefundRequest | RefundSyncRequest, 'amountMinor' | 'charge'>) =>
  request.amountMinor !== request.charge.amountMinor;

function refused(reason: string): Step {
  return { status: 'refused', reason };
}

/** Airtel takes the number without the country code: `991234567`. */
function localNumber(mobile: MalawiMobile): string {
  return mobile.msisdn.slice(3);
}

/** The disbursement PIN encrypted with Airtel's RSA public key (PKCS#1 v1.5), base64; null when either is missing or the key cannot be read. */
function encryptPin(options: AirtelOptions): string | null {
  if (!options.disbursementPin || !options.publicKeyPem) return null;
  try {
    return publicEncrypt(
      { key: options.publicKeyPem, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(options.disbursementPin),
    ).toString('base64');
  } catch {
    return null;
  }
}

/** Whether `hash` (base64) is the HMAC-SHA256 of one of `texts` under `secret`, compared in constant time. */
function hashMatches(secret: string, hash: string | undefined, texts: string[]): boolean {
  if (hash === undefined) return false;
  const given = Buffer.from(hash, 'base64');
  return texts
    .map((text) => createHmac('sha256', secret).update(text).digest())
    .some((expected) => expected.length === given.length && timingSafeEqual(expected, given));
}
