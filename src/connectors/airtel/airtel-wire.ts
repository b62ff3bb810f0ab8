import type { Step } from '../connector.ts';
import { airtelReason, codeMeaning } from './airtel-codes.ts';
import type { AirtelCall, HttpAnswer } from './airtel-http.ts';
import type { IssuedToken } from './airtel-token.ts';

/*
 * Airtel Money Open API's JSON, and what its answers mean as `Step`s. Errors come inside HTTP 200
 * answers (`status.success: false` and a code), so the body decides, not the HTTP status. A
 * transaction's own state is `data.transaction.status` in an enquiry: TS success, TF failed, TA
 * ambiguous, TIP in progress.
 */

interface AirtelStatus {
  code?: string;
  message?: string;
  result_code?: string;
  response_code?: string;
  success?: boolean;
}

interface AirtelTransaction {
  id?: string | boolean;
  status?: string;
  message?: string;
  airtel_money_id?: string;
}

interface AirtelAnswer {
  data?: { transaction?: AirtelTransaction };
  status?: AirtelStatus;
}

export interface TokenRequestOptions {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

/** POST /auth/oauth2/token with the client credentials; throws (without the secret) when no token comes back. */
export async function requestToken(options: TokenRequestOptions): Promise<IssuedToken> {
  const response = await fetch(new URL('/auth/oauth2/token', options.apiUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      client_id: options.clientId,
      client_secret: options.clientSecret,
      grant_type: 'client_credentials',
    }),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const body = (await response.json().catch(() => undefined)) as
    { access_token?: unknown; expires_in?: unknown } | undefined;
  // Airtel's samples send `expires_in` as a string ("180"), others as a number.
  const expiresInSeconds = Number(body?.expires_in);
  if (!response.ok || typeof body?.access_token !== 'string' || !(expiresInSeconds > 0)) {
    throw new Error(`the token endpoint answered HTTP ${response.status} without a usable token`);
  }
  return { token: body.access_token, expiresInSeconds };
}

/** USSD push: Airtel asks the customer for their PIN; how it went is learnt by enquiry or callback. */
export async function requestPayment(
  call: AirtelCall,
  request: { reference: string; msisdn: string; amount: number; country: string; currency: string },
): Promise<Step> {
  const answer = await call('POST', '/merchant/v1/payments/', {
    reference: request.reference,
    subscriber: { country: request.country, currency: request.currency, msisdn: request.msisdn },
    transaction: {
      amount: request.amount,
      country: request.country,
      currency: request.currency,
      id: request.reference,
    },
  });
  return transactionStep(answer);
}

/** GET /standard/v1/payments/{id}: a collection's state under our id. */
export async function paymentEnquiry(call: AirtelCall, reference: string): Promise<Step> {
  return enquiryStep(await call('GET', `/standard/v1/payments/${encodeURIComponent(reference)}`));
}

/**
 * Airtel refunds a whole collection, named by its `airtel_money_id`. Its answer is final when it
 * says so; otherwise the collection's enquiry tells, by `TR` (reversed), that the refund happened.
 */
export async function requestRefund(call: AirtelCall, airtelMoneyId: string): Promise<Step> {
  const answer = await call('POST', '/standard/v1/payments/refund', {
    transaction: { airtel_money_id: airtelMoneyId },
  });
  if (answer.kind !== 'answered') return unknownStep(answer);
  const body = answer.body as AirtelAnswer | undefined;
  const transaction = body?.data?.transaction;
  if (
    answer.status === 200 &&
    body?.status?.success === true &&
    (transaction?.status === 'SUCCESS' || transaction?.status === 'TS')
  ) {
    return { status: 'success', operatorId: transaction.airtel_money_id ?? airtelMoneyId };
  }
  return transactionStep(answer);
}

/** The refund of the collection under `chargeReference`, as that collection's enquiry tells it. */
export async function refundEnquiry(call: AirtelCall, chargeReference: string): Promise<Step> {
  const answer = await call('GET', `/standard/v1/payments/${encodeURIComponent(chargeReference)}`);
  const transaction =
    answer.kind === 'answered' ? (answer.body as AirtelAnswer | undefined)?.data?.transaction : undefined;
  if (answer.kind === 'answered' && answer.status === 200 && transaction?.status === 'TR') {
    return { status: 'success', operatorId: transaction.airtel_money_id ?? null };
  }
  return {
    status: 'pending',
    note: `the payment is not reversed yet (${transaction?.status ?? describeAnswer(answer)})`,
  };
}

/** B2C disbursement to an Airtel wallet; `encryptedPin` is the disbursement PIN as Airtel's key encrypted it. */
export async function requestDisbursement(
  call: AirtelCall,
  request: { reference: string; msisdn: string; amount: number; encryptedPin: string },
): Promise<Step> {
  const answer = await call('POST', '/standard/v1/disbursements/', {
    payee: { msisdn: request.msisdn, wallet_type: 'NORMAL' },
    reference: request.reference,
    pin: request.encryptedPin,
    transaction: { amount: request.amount, id: request.reference, type: 'B2C' },
  });
  return transactionStep(answer);
}

/** GET /standard/v1/disbursements/{id}: a disbursement's state under our id. */
export async function disbursementEnquiry(call: AirtelCall, reference: string): Promise<Step> {
  return enquiryStep(await call('GET', `/standard/v1/disbursements/${encodeURIComponent(reference)}`));
}

/**
 * An enquiry never refuses: "refused" means the request may be made again, but the transaction it
 * asks about may exist all the same. Whatever stops an enquiry leaves the transaction pending.
 */
function enquiryStep(answer: HttpAnswer): Step {
  const step = transactionStep(answer);
  return step.status === 'refused' ? { status: 'pending', note: `enquiry refused: ${step.reason}` } : step;
}

/** What an answer says of a transaction: only an explicit TS is a success, only TF or a failure code a failure. */
function transactionStep(answer: HttpAnswer): Step {
  if (answer.kind !== 'answered') return unknownStep(answer);
  if (answer.status === 408 || answer.status >= 500)
    return { status: 'pending', note: `Airtel answered HTTP ${answer.status}` };
  const body = answer.body as AirtelAnswer | undefined;
  if (answer.status >= 400) return httpRefusal(answer.status, body);
  if (typeof body !== 'object' || body === null)
    return { status: 'pending', note: `unreadable answer (HTTP ${answer.status})` };

  const transaction = body.data?.transaction;
  const code = body.status?.response_code ?? body.status?.result_code ?? null;
  const meaning = code ? codeMeaning(code) : undefined;
  const operatorId = transaction?.airtel_money_id ?? null;

  if (transaction?.status === 'TS') return { status: 'success', operatorId };
  if (transaction?.status === 'TF') {
    if (meaning?.outcome === 'failed') return { status: 'failed', reason: meaning.reason, code: meaning.code };
    return {
      status: 'failed',
      reason: airtelReason(`the payment failed${transaction.message ? `: ${transaction.message}` : ''}`, code),
      code: 'declined',
    };
  }
  if (meaning?.outcome === 'failed') return { status: 'failed', reason: meaning.reason, code: meaning.code };
  if (meaning?.outcome === 'refused') return { status: 'refused', reason: meaning.reason };
  const state = transaction?.status;
  const note =
    state === 'TA' || state === 'TIP'
      ? state
      : meaning?.outcome === 'pending'
        ? meaning.note
        : `no outcome yet${code ? ` (${code})` : ''}`;
  return { status: 'pending', operatorId, note };
}

/** A 4xx other than 401 and 408: Airtel's gateway refused the request before taking it. */
function httpRefusal(status: number, body: AirtelAnswer | undefined): Step {
  const code = body?.status?.response_code ?? body?.status?.result_code ?? null;
  const meaning = code ? codeMeaning(code) : undefined;
  if (meaning?.outcome === 'refused') return { status: 'refused', reason: meaning.reason };
  return {
    status: 'refused',
    reason: airtelReason(`the request was refused (HTTP ${status}${code ? `, ${code}` : ''})`, null),
  };
}

function unknownStep(answer: Exclude<HttpAnswer, { kind: 'answered' }>): Step {
  return answer.kind === 'not_sent'
    ? { status: 'refused', reason: airtelReason('the service could not be reached', null) }
    : { status: 'pending', note: answer.note };
}

function describeAnswer(answer: HttpAnswer): string {
  return answer.kind === 'answered' ? `HTTP ${answer.status}` : answer.note;
}

/** A callback's body: `transaction` and, when callback authentication is on, `hash`. */
export interface AirtelCallback {
  transaction: { id: string; status_code?: string; airtel_money_id?: string; message?: string };
  hash?: string;
}

export function readCallback(body: unknown): AirtelCallback | null {
  if (typeof body !== 'object' || body === null) return null;
  const { transaction, hash } = body as { transaction?: unknown; hash?: unknown };
  if (typeof transaction !== 'object' || transaction === null) return null;
  if (typeof (transaction as { id?: unknown }).id !== 'string') return null;
  if (hash !== undefined && typeof hash !== 'string') return null;
  return { transaction: transaction as AirtelCallback['transaction'], hash };
}

/**
 * The texts a callback's `hash` may be the HMAC of. Airtel's documentation says the payload is
 * hashed, and its Java sample hashes `{"transaction":{…}}` (the body without `hash`); other
 * integrators read it as the `transaction` object alone. Both are keyed with the callback secret.
 */
export function callbackHashedTexts(callback: AirtelCallback): string[] {
  return [JSON.stringify({ transaction: callback.transaction }), JSON.stringify(callback.transaction)];
}
