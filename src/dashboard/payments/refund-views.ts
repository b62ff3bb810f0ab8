/**
 * A refund from the payment's page, in two steps: the form (its amount empty until the merchant
 * types one or chooses Full refund), then a page of its own saying what will happen, whose
 * Confirm is the only post that refunds.
 */
import type { Balances } from '../../ledger/ledger-service.ts';
import type { RefundWithCharge } from '../../refunds/refund-repository.ts';
import { leftToRefund, type RefundPreview } from '../../refunds/refund-service.ts';
import { formatMoneyText, moneyText } from '../../shared/money.ts';
import { csrfField, errorBox } from '../../web/components.ts';
import { html, joinHtml, type SafeHtml } from '../../web/html.ts';
import { confirmForm, factList, shell } from '../layout.ts';
import type { MerchantPage } from '../page-context.ts';
import { majorText, type RefundForm } from './refund-form.ts';
import { methodOf, type PaymentSummary } from './payment-summary.ts';

/** The form as the payment's page shows it again: what was typed, and why it was refused. */
export interface RefundFormState {
  amount: string;
  reason: string;
  error: string | null;
}

const refundAction = (payment: PaymentSummary) => `/dashboard/payments/${encodeURIComponent(payment.id)}/refund`;

/** The payment page's refund section: what was refunded, the balances, and the form for those who may refund. */
export function refundSection(view: {
  payment: PaymentSummary;
  page: MerchantPage;
  balances: Balances;
  refunds: RefundWithCharge[];
  form: RefundFormState | null;
}): SafeHtml {
  const { payment, page, balances } = view;
  const paid = payment.paid;
  const refunded = paid ? paid.refunded_minor : 0;
  const lines = [
    html`<p>Already refunded ${moneyText(payment.currency, refunded)} of ${moneyText(payment.currency, payment.amountMinor)}.</p>`,
    waitingRefunds(view.refunds),
    html`<dl class="facts balance"><dt>Collection balance</dt><dd>${moneyText(payment.currency, balances.collectionMinor)}</dd><dt>Main balance</dt><dd>${moneyText(payment.currency, balances.mainMinor)}</dd></dl>`,
  ];
  const left = paid ? leftToRefund(paid) : 0;
  if (!paid) return joinHtml([...lines, html`<p class="muted">Only a successful payment can be refunded.</p>`], '\n');
  if (left === 0) return joinHtml([...lines, html`<p class="muted">This payment has been refunded in full.</p>`], '\n');
  if (!page.may('refund'))
    return joinHtml([...lines, html`<p class="muted">Your role cannot refund payments.</p>`], '\n');
  const form = view.form ?? { amount: '', reason: '', error: null };
  // Review comes first: it is the button Enter presses. Full refund skips the amount's `required`.
  return html`${joinHtml(lines, '\n')}
${errorBox(form.error)}
<form class="stack refund" method="post" action="${refundAction(payment)}">
${csrfField(page.csrf)}
<label>Amount to refund (${payment.currency})<span class="hint">Up to ${formatMoneyText(left)}, what is left: a whole amount, or choose Full refund.</span><input type="text" inputmode="decimal" name="amount" value="${form.amount}" required></label>
<label>Reason<span class="hint">Optional; kept with the refund.</span><input type="text" name="reason" maxlength="500" value="${form.reason}"></label>
<p class="warning">Refunds cannot be undone: you check the refund on the next page, and only your confirmation there gives the money back.</p>
<div class="actions"><button type="submit">Review the refund</button><button type="submit" class="secondary" name="full" value="1" formnovalidate>Full refund (${moneyText(payment.currency, left)})</button></div>
</form>`;
}

/** The payment's refunds that wait for the balance, each with why: what the merchant may want to act on. */
function waitingRefunds(refunds: RefundWithCharge[]): SafeHtml | null {
  const waiting = refunds.filter((refund) => refund.pending_reason !== null);
  if (waiting.length === 0) return null;
  const items = waiting.map(
    (refund) =>
      html`<li><strong>Refund ${refund.refund_id}</strong> of ${moneyText(refund.currency, refund.amount_minor)} waits: ${refund.pending_reason}</li>`,
  );
  return html`<div class="warning waiting-refunds"><p>Waiting for the balance:</p><ul>${items}</ul></div>`;
}

export interface RefundConfirmation {
  payment: PaymentSummary;
  preview: RefundPreview;
  form: RefundForm;
}

/**
 * What the refund will do, on a page of its own: how much, to whom and by what, what is left to
 * refund after it, and the balance it leaves. Its form posts back the request with the refunded
 * total it was drawn against, so a confirmation posted twice, or after another refund, refunds
 * nothing more.
 */
export function renderRefundConfirmation(page: MerchantPage, { payment, preview, form }: RefundConfirmation): SafeHtml {
  const { charge, amountMinor, feeReturnedMinor, balances, sources, waits } = preview;
  const money = (minor: number) => moneyText(charge.currency, minor);
  const customer = [payment.customerName, payment.email && `(${payment.email})`].filter(Boolean).join(' ') || '—';
  const facts = factList([
    ['Refund', html`<strong>${money(amountMinor)}</strong>`],
    ['To', customer],
    ['Back to', methodOf(charge)],
    [payment.kind === 'checkout' ? 'Payment (tx_ref)' : 'Payment (charge id)', payment.reference],
    ['Paid', money(charge.amount_minor)],
    ['Refunded before', money(charge.refunded_minor)],
    ['Left to refund after this', html`<strong>${money(leftToRefund(charge) - amountMinor)}</strong>`],
    ['Reason', form.reason || 'None given'],
  ]);
  const takes = amountMinor - feeReturnedMinor;
  const feeLine: [string, SafeHtml | string][] =
    feeReturnedMinor > 0
      ? [
          ['Fee given back to you', money(feeReturnedMinor)],
          ['Taken from your balance', money(takes)],
        ]
      : [];
  const balanceFacts = sources ? takenFacts(page, balances, sources, money) : null;
  const outcome = waits
    ? html`<p class="warning">${waits} A refund cannot be undone: once you confirm, it is recorded as waiting, and ${money(takes)} leaves your balance when it goes out.</p>`
    : html`<p class="warning">A refund cannot be undone: once you confirm, ${money(takes)} leaves your balance and ${money(amountMinor)} goes back to the customer.</p>`;
  const back = `/dashboard/payments/${encodeURIComponent(payment.id)}`;
  return shell(
    'Confirm refund',
    html`<h1>Confirm the refund</h1>
${facts}
<h2>From your balance</h2>
<p class="muted">A refund is taken from the collection balance first, then from the main balance; the share of the payment's fee it refunds is given back to you.</p>
${feeLine.length > 0 && factList(feeLine)}
${balanceFacts}
${outcome}
${confirmForm({
  action: `${refundAction(payment)}/confirm`,
  csrf: page.csrf,
  label: `Refund ${money(amountMinor)}`,
  fields: {
    amount: form.full ? majorText(amountMinor) : form.amount,
    full: form.full ? '1' : '',
    reason: form.reason,
    refunded: String(charge.refunded_minor),
  },
  back,
})}`,
    { viewer: page.viewer },
  );
}

/** Which of the merchant's balances the refund takes from, and what each holds before and after. */
function takenFacts(
  page: MerchantPage,
  balances: Balances,
  sources: { fromCollection: number; fromMain: number },
  money: (minor: number) => string,
): SafeHtml {
  const takenFrom = [sources.fromCollection > 0 && 'collection', sources.fromMain > 0 && 'main'].filter(Boolean);
  return factList([
    [
      'Taken from',
      `Your ${page.mode}-mode ${takenFrom.join(' and ')} ${takenFrom.length > 1 ? 'balances' : 'balance'}`,
    ],
    ['Collection balance now', money(balances.collectionMinor)],
    ['Collection balance after', html`<strong>${money(balances.collectionMinor - sources.fromCollection)}</strong>`],
    ['Main balance now', money(balances.mainMinor)],
    ['Main balance after', html`<strong>${money(balances.mainMinor - sources.fromMain)}</strong>`],
  ]);
}
