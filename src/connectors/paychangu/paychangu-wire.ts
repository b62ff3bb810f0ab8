import type {
  CallbackVerdict,
  CollectMethod,
  CollectRequest,
  PayoutRequest,
  PendingStep,
  RefundRequest,
  Step,
} from '../connector.ts';
import type { BankTransferPayer, FailureCode } from '../provider.ts';
import type { MalawiMobile, Operator } from '../../shared/phone.ts';

/**
 * PayChangu's JSON, both ways (docs/integrate/api-reference.md#paychangu-compatibility): the requests each flow sends and how each answer
 * reads as a `Step`. Nothing outside this folder knows a PayChangu field name.
 */

export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

/** What came back: a status and the parsed body (undefined when it was not JSON), or no answer at all. */
export type Answer = { status: number; body: unknown } | { status: 'none'; note: string };

/** PayChangu's ids for the operators (`GET /mobile-money`), fixed forever: merchants hard-code them. */
const OPERATOR_REF_IDS: Record<Operator, string> = {
  airtel: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
  tnm: '27494cb5-ba9e-437f-a114-4e7a7686bcca',
};

/**
 * A refund's only free-text field carries our reference: PayChangu's refunds have no id of the
 * merchant's, and its `api.refund` webhook and refund list must lead back to our record.
 */
const REFUND_REASON = /^Lipira refund (\S+)$/;
const refundReason = (reference: string) => `Lipira refund ${reference}`;

const FAILURE_CODES: readonly FailureCode[] = [
  'declined',
  'insufficient_funds',
  'timed_out',
  'issuer_error',
  'wrong_otp',
  'wrong_pin',
  'rejected_by_customer',
  'limit_exceeded',
  'not_started',
  'wrong_amount',
  'expired',
];

/** PayChangu takes whole kwacha: an amount with a fraction cannot be sent at all. */
export function majorAmount(amountMinor: number): number | null {
  return Number.isInteger(amountMinor) && amountMinor > 0 && amountMinor % 100 === 0 ? amountMinor / 100 : null;
}

export const FRACTION_REFUSED = 'PayChangu takes whole amounts only: this amount has a fraction of the currency unit.';

/** `0881234567`: the local form every PayChangu client sends. */
const localMobile = (mobile: MalawiMobile) => `0${mobile.msisdn.slice(3)}`;

/** `12/30` from `2030-12`. */
const cardExpiry = (expiry: string) => `${expiry.slice(5, 7)}/${expiry.slice(2, 4)}`;

export function collectRequest(request: CollectRequest, amount: number): WireRequest {
  const common = { amount, currency: request.currency, charge_id: request.reference };
  switch (request.method) {
    case 'mobile_money':
      return {
        method: 'POST',
        path: '/mobile-money/payments/initialize',
        body: {
          ...common,
          mobile: localMobile(request.mobile),
          mobile_money_operator_ref_id: OPERATOR_REF_IDS[request.mobile.operator],
        },
      };
    case 'bank_transfer':
      return {
        method: 'POST',
        path: '/direct-charge/payments/initialize',
        body: { ...common, payment_method: 'mobile_bank_transfer' },
      };
    case 'card':
      return {
        method: 'POST',
        path: '/charge-card/payments',
        body: {
          ...common,
          card_number: request.card.number,
          expiry: cardExpiry(request.card.expiry),
          cvv: request.card.cvv,
          cardholder_name: request.cardholderName,
          redirect_url: request.returnUrl,
        },
      };
  }
}

/** Where a charge is read back: each channel's own verify or details route; mobile money's when the channel is not known. */
export function collectReadRequest(reference: string, method: CollectMethod | undefined): WireRequest {
  const id = encodeURIComponent(reference);
  if (method === 'bank_transfer') return { method: 'GET', path: `/direct-charge/transactions/${id}/details` };
  if (method === 'card') return { method: 'GET', path: `/charge-card/verify/${id}` };
  return { method: 'GET', path: `/mobile-money/payments/${id}/verify` };
}

/** A card payment through PayChangu's card refund route, any other through `/refunds`. */
export function refundRequest(request: RefundRequest, amount: number): WireRequest {
  const reason = refundReason(request.reference);
  if (request.charge.method === 'card')
    return {
      method: 'POST',
      path: `/charge-card/refund/${encodeURIComponent(request.charge.reference)}`,
      body: { amount, reason },
    };
  return { method: 'POST', path: '/refunds', body: { charge_id: request.charge.reference, amount, reason } };
}

export const refundReadRequest = (refundId: string): WireRequest => ({
  method: 'GET',
  path: `/refunds/${encodeURIComponent(refundId)}`,
});

/** The latest refunds (PayChangu lists 100), where one whose id was never recorded is looked for by its reason. */
export const latestRefundsRequest: WireRequest = { method: 'GET', path: '/refunds' };

export function payoutRequest(request: PayoutRequest, amount: number): WireRequest {
  const common = { amount, currency: request.currency, charge_id: request.reference };
  if (request.method === 'mobile_money') {
    return {
      method: 'POST',
      path: '/mobile-money/payouts/initialize',
      body: {
        ...common,
        mobile: localMobile(request.mobile),
        mobile_money_operator_ref_id: OPERATOR_REF_IDS[request.mobile.operator],
      },
    };
  }
  const { recipient } = request;
  return {
    method: 'POST',
    path: '/direct-charge/payouts/initialize',
    body: {
      ...common,
      payout_method: 'bank_transfer',
      bank_uuid: recipient.bankUuid,
      bank_account_name: recipient.accountName,
      bank_account_number: recipient.accountNumber,
    },
  };
}

/**
 * Where a payout is read back, in order: PayChangu shows a payout of the banks list only on its
 * own details route, and a mobile money payout on the charges' details route. The connector is
 * not told which kind it made, so it asks the first and, if that knows nothing of it, the second.
 */
export function payoutReadRequests(reference: string): [WireRequest, WireRequest] {
  const id = encodeURIComponent(reference);
  return [
    { method: 'GET', path: `/direct-charge/payouts/${id}/details` },
    { method: 'GET', path: `/mobile-money/payments/${id}/details` },
  ];
}

/**
 * The answer to a request that starts a charge, refund or payout. A 4xx means PayChangu did not
 * take it (validation, key, balance): refused, so nothing moved. The duplicate, a 4xx too, is
 * told apart first by `isDuplicate`.
 */
export function startStep(answer: Answer, flow: 'collect-card' | 'other'): Step {
  if (answer.status === 'none') return pending(answer.note);
  if (answer.status >= 400 && answer.status < 500)
    return { status: 'refused', reason: `PayChangu refused it: ${errorText(answer.body, answer.status)}` };
  if (answer.status < 200 || answer.status >= 300) return pending(`PayChangu answered HTTP ${answer.status}`);
  return flow === 'collect-card' ? cardStartStep(answer.body) : recordStep(answer.body);
}

/** PayChangu already has a record under our reference, ended since (a pending one is answered as at first). */
export function isDuplicate(answer: Answer): boolean {
  if (answer.status !== 400) return false;
  const texts = objectOf(objectOf(answer.body)?.message)?.charge_id;
  return Array.isArray(texts) && texts.some((text) => typeof text === 'string' && text.includes('already been taken'));
}

/** The answer to a read: never refused (a read moves nothing), pending unless PayChangu states an end. */
export function readStep(answer: Answer): Step {
  if (answer.status === 'none') return pending(answer.note);
  if (answer.status === 404) return pending('PayChangu has no record of it (yet)');
  if (answer.status < 200 || answer.status >= 300) return pending(`PayChangu answered HTTP ${answer.status}`);
  return recordStep(answer.body);
}

export const isNotFound = (answer: Answer) => answer.status === 404;

/** Our refund among PayChangu's latest refunds, found by the reason it was sent with: how it stands. */
export function refundStepAmong(answer: Answer, reference: string): Step {
  if (answer.status === 'none' || answer.status < 200 || answer.status >= 300) return readStep(answer);
  const listed = objectOf(answer.body)?.data;
  const found = Array.isArray(listed)
    ? listed.find((refund) => textOf(objectOf(refund)?.reason) === refundReason(reference))
    : undefined;
  return found ? recordStep({ data: found }) : pending('PayChangu lists no refund with our reference (yet)');
}

/** Which of our records an authenticated webhook is about (docs/integrate/api-reference.md#webhook-events, docs/integrate/api-reference.md#refunds). */
export function callbackSubject(body: unknown): CallbackVerdict {
  const event = objectOf(body);
  const eventType = textOf(event?.event_type);
  const chargeId = textOf(event?.charge_id);
  if (eventType === 'api.charge.payment' && chargeId)
    return { status: 'accepted', flow: 'collect', reference: chargeId };
  if (eventType === 'api.payout' && chargeId) return { status: 'accepted', flow: 'payout', reference: chargeId };
  const txRef = textOf(event?.tx_ref);
  if (eventType === 'checkout.payment' && txRef) return { status: 'accepted', flow: 'collect', reference: txRef };
  const ours = REFUND_REASON.exec(textOf(event?.reason) ?? '')?.[1];
  if (eventType === 'api.refund' && ours) return { status: 'accepted', flow: 'refund', reference: ours };
  if (eventType === 'api.refund') return { status: 'refused', reason: 'A refund this gateway did not make.' };
  return { status: 'refused', reason: `An event this connector does not follow (${eventType ?? 'no event_type'}).` };
}

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string' && value.length > 0) return value;
  return typeof value === 'number' ? String(value) : null;
}

function pending(note: string, operatorId?: string | null): PendingStep {
  return operatorId === undefined ? { status: 'pending', note } : { status: 'pending', note, operatorId };
}

/**
 * The record an envelope carries: `data.transaction` on the bank routes, `data` elsewhere, and
 * beside it a bank transfer's account. An error envelope or anything else carries none.
 */
function recordOf(body: unknown): { record: Json; account: Json | null } | null {
  const envelope = objectOf(body);
  if (envelope?.status === 'failed') return null;
  const data = objectOf(envelope?.data);
  const record = objectOf(data?.transaction) ?? data;
  return record ? { record, account: objectOf(data?.payment_account_details) } : null;
}

/** Only an explicit `success`/`successful` or `failed` ends it; any other status (`pending`, unknown words) leaves it pending. */
function recordStep(body: unknown): Step {
  const found = recordOf(body);
  if (!found) return pending('PayChangu answered something that could not be read');
  const { record, account } = found;
  const operatorId = textOf(record.refund_id) ?? textOf(record.ref_id);
  const status = textOf(record.status)?.toLowerCase();
  if (status === 'success' || status === 'successful') {
    const payer = payerOf(record);
    return payer ? { status: 'success', operatorId, payer } : { status: 'success', operatorId };
  }
  if (status === 'failed') {
    const reason = textOf(record.failure_reason) ?? lastLogOf(record) ?? 'PayChangu reported it failed.';
    const code = FAILURE_CODES.find((known) => known === record.failure_code);
    return code ? { status: 'failed', reason, code } : { status: 'failed', reason };
  }
  const step = pending(`PayChangu reports it ${status ?? 'without a status'}`, operatorId);
  const bankName = textOf(account?.bank_name);
  const accountNumber = textOf(account?.account_number);
  return bankName && accountNumber ? { ...step, account: { bankName, accountNumber } } : step;
}

/** Most records carry no failure reason of their own; their activity log ends with what happened. */
function lastLogOf(record: Json): string | null {
  const logs = Array.isArray(record.logs) ? record.logs : [];
  return textOf(objectOf(logs[logs.length - 1])?.message);
}

/** Who paid a bank transfer, as details show it (the number already masked by PayChangu). */
function payerOf(record: Json): BankTransferPayer | undefined {
  const authorization = objectOf(record.authorization);
  const bank = textOf(authorization?.payer_bank);
  const accountNumber = textOf(authorization?.payer_account_number);
  const accountName = textOf(authorization?.payer_account_name);
  return bank && accountNumber && accountName ? { bank, accountNumber, accountName } : undefined;
}

/** The card route answers without an envelope: the 3-D Secure page the customer must complete. */
function cardStartStep(body: unknown): Step {
  const answer = objectOf(body);
  if (answer?.success !== true) return pending('PayChangu answered something that could not be read');
  const link = textOf(answer['3ds_auth_link']);
  if (answer.requires_3ds_auth === true && link)
    return { status: 'pending', note: 'waiting for 3-D Secure', redirectUrl: link };
  return pending('PayChangu took the card without 3-D Secure: its outcome is asked for');
}

/** A failed envelope's message, a text or Laravel-style field messages, as one sentence. */
function errorText(body: unknown, status: number): string {
  const message = objectOf(body)?.message;
  if (typeof message === 'string' && message.length > 0) return message;
  const fields = objectOf(message);
  const texts = fields
    ? Object.values(fields).flatMap((value) =>
        Array.isArray(value) ? value.filter((text) => typeof text === 'string') : [],
      )
    : [];
  return texts.length > 0 ? texts.join(' ') : `HTTP ${status}`;
}
