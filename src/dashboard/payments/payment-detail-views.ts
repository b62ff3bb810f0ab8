import type { Charge } from '../../core/charge-repository.ts';
import { sessionOutcome } from '../../checkout/session-outcome.ts';
import { leftToRefund, type RefundTarget } from '../../refunds/refund-service.ts';
import type { RefundWithCharge } from '../../refunds/refund-repository.ts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { formatMoneyText, moneyText } from '../../shared/money.ts';
import { formatHumanDate } from '../../shared/time.ts';
import type { Balances } from '../../ledger/ledger-service.ts';
import { copyButton, postButton, shell, statusBadge } from '../layout.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import type { MerchantPage } from '../page-context.ts';
import type {
  DeliveryWithAttempts,
  EmailRow,
  EventRow,
  LogLine,
  PaymentHistory,
  PaymentRecord,
} from './payment-detail-repository.ts';

/** A payment as its page shows it, whichever kind of record it is. */
export interface PaymentSummary {
  /** The id the page goes by: the session's, or the direct charge's own (whichever of its ids opened it). */
  id: string;
  kind: PaymentRecord['kind'];
  /** A session's by how it ended (`sessionOutcome`), a direct charge's as it is. */
  status: string;
  amountMinor: number;
  feeMinor: number;
  currency: string;
  /** The checkout session's `tx_ref`, or a direct payment's `charge_id`. */
  reference: string;
  /** The session's own reference, or a direct payment's `ref_id`. */
  serviceReference: string;
  customerName: string | null;
  email: string | null;
  /** The charge that paid, or the latest attempt: how the customer paid, or tried to. */
  method: Charge | undefined;
  createdAt: number;
  completedAt: number | null;
  /** The charge a refund would give back, once the payment succeeded. */
  paid: Charge | undefined;
  /** How the refund service names this payment. */
  refundTarget: RefundTarget;
  /** The records whose log lines are the payment's: the session and its attempts, or the charge. */
  logOwners: string[];
  attempts: Charge[];
}

export function summarize(record: PaymentRecord, maxFailedAttempts: number): PaymentSummary {
  if (record.kind === 'checkout') {
    const { session, attempts } = record;
    const paid = attempts.find((attempt) => attempt.id === session.paid_charge_id);
    return {
      id: session.id,
      kind: 'checkout',
      status: sessionOutcome(session, maxFailedAttempts),
      amountMinor: session.amount_minor,
      feeMinor: session.fee_minor,
      currency: session.currency,
      reference: session.tx_ref,
      serviceReference: session.reference,
      customerName: fullName(session.first_name, session.last_name),
      email: session.email,
      method: paid ?? attempts.at(-1),
      createdAt: session.created_at,
      completedAt: session.completed_at,
      paid,
      refundTarget: { txRef: session.tx_ref },
      logOwners: [session.id, ...attempts.map((attempt) => attempt.id)],
      attempts,
    };
  }
  const { charge } = record;
  return {
    id: charge.id,
    kind: 'direct',
    status: charge.status,
    amountMinor: charge.amount_minor,
    feeMinor: charge.fee_minor,
    currency: charge.currency,
    reference: charge.charge_id,
    serviceReference: charge.ref_id,
    customerName: fullName(charge.first_name, charge.last_name),
    email: charge.email,
    method: charge,
    createdAt: charge.created_at,
    completedAt: charge.completed_at,
    paid: charge.status === 'success' ? charge : undefined,
    refundTarget: { chargeId: charge.charge_id },
    logOwners: [charge.id],
    attempts: [charge],
  };
}

const fullName = (first: string | null, last: string | null) => [first, last].filter(Boolean).join(' ') || null;

export interface RefundFormState {
  amount: string;
  reason: string;
  error: string | null;
}

export interface PaymentPageView {
  page: MerchantPage;
  timeZone: string;
  payment: PaymentSummary;
  history: PaymentHistory;
  refunds: RefundWithCharge[];
  balances: Balances;
  notice: string | null;
  form: RefundFormState | null;
}

export function renderPaymentPage(view: PaymentPageView): SafeHtml {
  const { payment } = view;
  const body = html`<p><a href="/dashboard/payments">← All payments</a></p>
<h1>Payment ${payment.reference} ${statusBadge(payment.status)}</h1>
${noticeBox(view.notice)}
${factsOf(view)}
<h2>Refund</h2>
${refundSection(view)}
<h2>Timeline</h2>
${timeline(view)}`;
  return shell(`Payment ${payment.reference}`, body, { viewer: view.page.viewer });
}

function factsOf({ payment, timeZone }: PaymentPageView): SafeHtml {
  const when = (ms: number | null) => (ms === null ? html`—` : formatHumanDate(ms, timeZone));
  const facts: Array<[string, HtmlValue]> = [
    ['Amount', moneyText(payment.currency, payment.amountMinor)],
    ['Fee', moneyText(payment.currency, payment.feeMinor)],
    ['Net', moneyText(payment.currency, payment.amountMinor - payment.feeMinor)],
    [
      payment.kind === 'checkout' ? 'Transaction reference (tx_ref)' : 'Charge id',
      html`${payment.reference}${copyButton(payment.reference, payment.kind === 'checkout' ? 'tx_ref' : 'charge id')}`,
    ],
    ['Lipira reference', html`${payment.serviceReference}${copyButton(payment.serviceReference, 'Lipira reference')}`],
    ['Customer', payment.customerName ?? '—'],
    ['Email', payment.email ?? '—'],
    ['Phone', payment.method?.mobile ?? '—'],
    ['Method', payment.method ? methodOf(payment.method) : 'No attempt yet'],
    ['Created', when(payment.createdAt)],
    ['Completed', when(payment.completedAt)],
  ];
  return html`<dl class="facts">${facts.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

const OPERATORS: Record<string, string> = { airtel: 'Airtel Money', tnm: 'TNM Mpamba' };

/** How a charge was paid, as people say it: a card by brand and last four digits only, never more of its number. */
function methodOf(charge: Charge): string {
  if (charge.channel === 'card')
    return `${charge.card_brand ?? 'Card'} ending ${charge.card_number?.slice(-4) ?? '····'}`;
  if (charge.channel === 'mobile_money')
    return `${(charge.operator && OPERATORS[charge.operator]) ?? 'Mobile money'} ${charge.mobile ?? ''}`.trim();
  return 'Bank transfer';
}

function refundSection(view: PaymentPageView): SafeHtml {
  const { payment, page, balances } = view;
  const paid = payment.paid;
  const refunded = paid ? paid.refunded_minor : 0;
  const lines = [
    html`<p>Already refunded ${moneyText(payment.currency, refunded)} of ${moneyText(payment.currency, payment.amountMinor)}.</p>`,
    html`<dl class="facts balance"><dt>Collection balance</dt><dd>${moneyText(payment.currency, balances.collectionMinor)}</dd><dt>Main balance</dt><dd>${moneyText(payment.currency, balances.mainMinor)}</dd></dl>`,
  ];
  const left = paid ? leftToRefund(paid) : 0;
  if (!paid) return joinHtml([...lines, html`<p class="muted">Only a successful payment can be refunded.</p>`], '\n');
  if (left === 0) return joinHtml([...lines, html`<p class="muted">This payment has been refunded in full.</p>`], '\n');
  if (!page.may('refund'))
    return joinHtml([...lines, html`<p class="muted">Your role cannot refund payments.</p>`], '\n');
  const form = view.form ?? { amount: majorText(left), reason: '', error: null };
  return html`${joinHtml(lines, '\n')}
${errorBox(form.error)}
<form class="stack refund" method="post" action="/dashboard/payments/${encodeURIComponent(payment.id)}/refund">
${csrfField(page.csrf)}
<label>Amount to refund (${payment.currency})<span class="hint">At most ${formatMoneyText(left)}, what is left; whole amounts, or all that is left.</span><input type="text" inputmode="decimal" name="amount" value="${form.amount}" required></label>
<label>Reason<span class="hint">Optional; kept with the refund.</span><input type="text" name="reason" maxlength="500" value="${form.reason}"></label>
<p class="warning">Refunds cannot be undone: the money leaves your balance now and goes back to the customer.</p>
<div class="actions"><button type="submit" class="danger">Refund</button></div>
</form>`;
}

/** Minor units as a plain major amount to type: `1000`, or `1000.50`. */
export const majorText = (minor: number): string =>
  minor % 100 === 0 ? String(minor / 100) : (minor / 100).toFixed(2);

interface Entry {
  at: number;
  html: SafeHtml;
}

/** Everything that happened to the payment, in one list oldest first. */
function timeline(view: PaymentPageView): SafeHtml {
  const { payment, history, refunds, page } = view;
  const deliveriesOf = (event: EventRow) => history.deliveries.filter((delivery) => delivery.event_id === event.id);
  const entries: Entry[] = [
    ...payment.attempts.map((attempt) => ({ at: attempt.created_at, html: attemptEntry(attempt, payment) })),
    ...history.logs.filter(firstOfEach).map((line) => ({ at: line.created_at, html: logEntry(line) })),
    ...history.events.map((event) => ({
      at: event.created_at,
      html: eventEntry(event, deliveriesOf(event), page, payment.id, view.timeZone),
    })),
    ...history.emails.map((email) => ({ at: email.created_at, html: emailEntry(email, view.timeZone) })),
    ...refunds.map((refund) => ({ at: refund.created_at, html: refundEntry(refund) })),
  ];
  entries.sort((a, b) => a.at - b.at);
  const items = entries.map((entry) => html`<li>${timeOf(entry.at, view.timeZone)}<div>${entry.html}</div></li>`);
  return html`<ol class="timeline">\n${joinHtml(items, '\n')}\n</ol>`;
}

/** A refund writes its line on both the charge and the session it paid: the page shows it once. */
function firstOfEach(line: LogLine, index: number, lines: LogLine[]): boolean {
  return lines.findIndex((other) => other.message === line.message && other.created_at === line.created_at) === index;
}

const timeOf = (ms: number, timeZone: string) =>
  html`<time datetime="${new Date(ms).toISOString()}">${formatHumanDate(ms, timeZone)}</time>`;

function attemptEntry(attempt: Charge, payment: PaymentSummary): SafeHtml {
  const what = payment.kind === 'checkout' ? `Attempt ${attempt.charge_id}` : 'Charge';
  const failure = attempt.failure_reason && `: ${attempt.failure_reason}`;
  return html`<strong>${what}</strong> by ${methodOf(attempt)} ${statusBadge(attempt.status)}${failure}`;
}

const logEntry = (line: LogLine) => html`<strong>Log</strong> ${line.message}`;

function refundEntry(refund: RefundWithCharge): SafeHtml {
  const why = refund.reason && html` · ${refund.reason}`;
  const failure = refund.failure_reason && `: ${refund.failure_reason}`;
  return html`<strong>Refund ${refund.refund_id}</strong> of ${moneyText(refund.currency, refund.amount_minor)} ${statusBadge(refund.status)}${failure}${why}`;
}

const RECEIPTS: Record<string, string> = {
  merchant_receipt: 'Receipt to you',
  customer_receipt: 'Receipt to the customer',
  merchant_refund_receipt: 'Refund receipt to you',
  customer_refund_receipt: 'Refund receipt to the customer',
};

function emailEntry(email: EmailRow, timeZone: string): SafeHtml {
  const sent = email.sent_at !== null && ` at ${formatHumanDate(email.sent_at, timeZone)}`;
  const error = email.status !== 'sent' && email.last_error && `: ${email.last_error}`;
  return html`<strong>Email</strong> ${RECEIPTS[email.kind] ?? email.kind} (${email.recipient}) ${statusBadge(email.status === 'sent' ? 'sent' : email.status)}${sent}${error}`;
}

function eventEntry(
  event: EventRow,
  deliveries: DeliveryWithAttempts[],
  page: MerchantPage,
  paymentId: string,
  timeZone: string,
): SafeHtml {
  const none = deliveries.length === 0 && html` <span class="muted">No webhook: no webhook URL was set.</span>`;
  const blocks = deliveries.map((delivery) => deliveryBlock(delivery, event, page, paymentId, timeZone));
  return html`<strong>Event</strong> ${event.type}${none}${blocks}`;
}

/** The fields of a webhook body that say what it told; the whole body is the delivery log's to show. */
const SUMMARY_FIELDS = ['event_type', 'status', 'amount', 'currency', 'tx_ref', 'charge_id', 'refund_id'];

function requestSummary(payload: string): string {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    // A body is always our own JSON; an unreadable one is summarized by its size alone.
  }
  const fields = SUMMARY_FIELDS.filter(
    (field) => typeof body[field] === 'string' || typeof body[field] === 'number',
  ).map((field) => `${field}: ${String(body[field])}`);
  return `${fields.join(', ')} (${Buffer.byteLength(payload)} bytes)`;
}

/** How much of a receiver's answer the page shows; the delivery log keeps the first 1 KiB. */
const RESPONSE_EXCERPT = 200;

function deliveryBlock(
  delivery: DeliveryWithAttempts,
  event: EventRow,
  page: MerchantPage,
  paymentId: string,
  timeZone: string,
): SafeHtml {
  const tries = delivery.tries.map((attempt) => {
    const answer =
      attempt.status_code === null ? `no answer: ${attempt.error ?? 'unknown error'}` : `HTTP ${attempt.status_code}`;
    const excerpt = attempt.response_body
      ? html` <code>${attempt.response_body.slice(0, RESPONSE_EXCERPT)}</code>`
      : '';
    return html`<li>${timeOf(attempt.attempted_at, timeZone)}: ${answer} in ${attempt.latency_ms} ms${excerpt}</li>`;
  });
  const retry = page.may('webhooks')
    ? postButton(`/dashboard/deliveries/${encodeURIComponent(delivery.id)}/retry`, page.csrf, 'Retry', 'secondary', {
        back: `/dashboard/payments/${paymentId}`,
      })
    : '';
  return html`<div class="delivery" id="delivery-${delivery.id}">
<p>Webhook ${delivery.id} to <span class="url">${delivery.url}</span> ${statusBadge(delivery.status)} after ${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}</p>
<p class="muted">Request: ${requestSummary(event.payload)}</p>
${tries.length > 0 && html`<ul class="tries">${tries}</ul>`}
${retry}
</div>`;
}
