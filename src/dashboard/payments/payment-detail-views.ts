import type { Charge } from '../../core/charge-repository.ts';
import type { RefundWithCharge } from '../../refunds/refund-repository.ts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { moneyText } from '../../shared/money.ts';
import { formatHumanDate } from '../../shared/time.ts';
import type { Balances } from '../../ledger/ledger-service.ts';
import { copyButton, factList, postButton, shell, statusBadge } from '../layout.ts';
import { noticeBox } from '../../web/components.ts';
import type { MerchantPage } from '../page-context.ts';
import type { DeliveryWithAttempts, EmailRow, EventRow, LogLine, PaymentHistory } from './payment-detail-repository.ts';
import { methodOf, type PaymentSummary } from './payment-summary.ts';
import { refundSection, type RefundFormState } from './refund-views.ts';

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
  return factList(facts);
}

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
  const waits = refund.pending_reason && `: waits for the balance`;
  const operatorId = refund.trans_id && html` · operator ref <code>${refund.trans_id}</code>`;
  return html`<strong>Refund ${refund.refund_id}</strong> of ${moneyText(refund.currency, refund.amount_minor)} ${statusBadge(refund.status)}${failure}${waits}${operatorId}${why}`;
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
