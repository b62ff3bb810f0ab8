/**
 * The hosted checkout's HTML (docs/integrate/api-reference.md#the-hosted-checkout). Server-rendered, no framework, no third-party
 * asset; built with the `html` tag, so every merchant-supplied string is escaped. The pages work without
 * JavaScript; checkout.js only adds method tabs, operator detection and the approval poll.
 * Signatures are the contract with src/checkout/checkout-page-routes.ts.
 */
import { readFileSync } from 'node:fs';
import { csrfField } from '../../web/components.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { ICONS } from './icons.ts';
import type { Advice } from './failure-advice.ts';
import {
  brandMarks,
  cancelActions,
  cancelControl,
  attemptAlert,
  cardHead,
  detailList,
  page,
  sessionAction,
  statusBlock,
  testBanner,
} from './layout.ts';

export type { PageContext, SessionSummary, TestInstruments } from './page-model.ts';
import type { PageContext, SessionSummary, TestInstruments } from './page-model.ts';

export interface PaymentFormState {
  /** Why the last attempt failed or was refused, shown above the forms. */
  error: string | null;
  /** After a failed attempt: `2 tries left`, `Last try`. */
  triesLeft: string | null;
  /** Which method's form is open. */
  method: 'mobile_money' | 'card' | 'bank_transfer';
  /** What the customer typed last, to refill the mobile form (never card data). */
  mobile: string;
  operator: 'airtel' | 'tnm' | '';
  /** Test mode only: what the TEST MODE banner lists. */
  testInstruments: TestInstruments | null;
}

/** Airtel Money and TNM Mpamba take MWK only: a session in another currency is paid by card. */
export function offersMobileMoney(summary: SessionSummary): boolean {
  return summary.currency === 'MWK';
}

export function renderPaymentPage(summary: SessionSummary, context: PageContext, state: PaymentFormState): SafeHtml {
  const mobileMoney = offersMobileMoney(summary);
  const methods = mobileMoney
    ? html`${methodTabs(state.method)}
${mobileMoneyPane(summary, context, state)}
${cardPane(summary, context, state.method === 'card')}
${bankTransferPane(summary, context, state.method === 'bank_transfer')}`
    : html`<p class="note" id="card-only">Airtel Money and TNM Mpamba take payments in MWK only, so this ${summary.currency} payment is made by card.</p>
${cardPane(summary, context, true)}`;
  const body = html`${testBanner(summary, state.testInstruments)}
${cardHead(summary, orderSummary(summary))}
<div class="card-body">
${state.error && attemptAlert(state.error, state.triesLeft)}
${methods}
${cancelControl(context, summary, `/checkout/${context.sessionId}`)}
</div>`;
  return page(`Pay ${summary.amountText} · ${summary.merchantName}`, body, { merchant: summary });
}

/** What is being paid for; the merchant's title is the page's main heading when there is one. */
function orderSummary(summary: SessionSummary): SafeHtml {
  const title = summary.title ?? `Payment to ${summary.merchantName}`;
  return html`<h1 class="order-title">${title}</h1>
${summary.description && html`<p class="order-description">${summary.description}</p>`}
<p class="amount">${summary.amountText}</p>
<p class="payer">Paying as <strong>${summary.customerName}</strong></p>`;
}

const METHODS = [
  { method: 'mobile_money', slug: 'mobile', label: 'Mobile money', icon: ICONS.phone },
  { method: 'card', slug: 'card', label: 'Card', icon: ICONS.card },
  { method: 'bank_transfer', slug: 'bank', label: 'Bank transfer', icon: ICONS.bank },
] as const;

/** Hidden until checkout.js runs: without it both forms are simply shown one after the other. */
function methodTabs(open: PaymentFormState['method']): SafeHtml {
  const tabs = METHODS.map(({ method, slug, label, icon }) => {
    const selected = method === open;
    return html`<button type="button" class="tab" role="tab" id="method-${slug}" aria-controls="pane-${slug}" aria-selected="${String(selected)}" tabindex="${selected ? 0 : -1}">${icon}${label}</button>`;
  });
  return html`<div class="tabs" role="tablist" aria-label="Payment method">${tabs}</div>`;
}

/** A method's form; a tab panel when there are tabs to choose it with. */
function methodPane(slug: string, title: string, open: boolean, form: SafeHtml, tabbed: boolean): SafeHtml {
  const role = tabbed && html` role="tabpanel" aria-labelledby="method-${slug}"`;
  return html`<section class="pane${open && ' is-open'}" id="pane-${slug}"${role}>
<h2 class="pane-title">${title}</h2>
${form}
</section>`;
}

const payLabel = (summary: SessionSummary) => html`Pay ${summary.amountText}`;

function mobileMoneyPane(summary: SessionSummary, context: PageContext, state: PaymentFormState): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}"${state.operator === value && ' selected'}>${label}</option>`;
  // The empty choice lets the server tell the operator from the number when the script could not.
  const form = html`${brandMarks(['airtel', 'tnm'], 'Mobile money we take')}
<form method="post" id="mobile-form" action="${sessionAction(context, 'pay/mobile-money')}">
${csrfField(context.csrfToken)}
<div class="field"><label for="mobile">Mobile number</label>
<input class="input" id="mobile" name="mobile" type="tel" autocomplete="tel" inputmode="numeric" placeholder="0991234567" value="${state.mobile}" required></div>
<div class="field"><label for="operator">Network</label>
<select class="input" id="operator" name="operator">${option('', 'Detect from number')}${option('airtel', 'Airtel Money')}${option('tnm', 'TNM Mpamba')}</select></div>
<button type="submit" class="button" id="pay-mobile">${payLabel(summary)}</button>
</form>`;
  return methodPane('mobile', 'Mobile money', state.method === 'mobile_money', form, true);
}

function cardPane(summary: SessionSummary, context: PageContext, open: boolean): SafeHtml {
  const form = html`${brandMarks(['visa', 'mastercard'], 'Cards we take')}
<form method="post" action="${sessionAction(context, 'pay/card')}">
${csrfField(context.csrfToken)}
<div class="field"><label for="card-number">Card number</label>
<input class="input" id="card-number" name="card_number" type="text" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" maxlength="23" required></div>
<div class="row">
<div class="field"><label for="card-expiry">Expiry date</label>
<input class="input" id="card-expiry" name="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" required></div>
<div class="field"><label for="card-cvv">CVV</label>
<input class="input" id="card-cvv" name="cvv" type="text" inputmode="numeric" autocomplete="cc-csc" placeholder="123" maxlength="4" required></div>
</div>
<button type="submit" class="button" id="pay-card">${payLabel(summary)}</button>
</form>`;
  return methodPane('card', 'Card', open, form, offersMobileMoney(summary));
}

/** Bank transfers, like mobile money, are offered for MWK sessions only: the pane is shown beside the tabs. */
function bankTransferPane(summary: SessionSummary, context: PageContext, open: boolean): SafeHtml {
  const form = html`<p class="lead-small">We give you a one-time account number. Transfer exactly <strong>${summary.amountText}</strong> to it from your bank&rsquo;s app or internet banking, using its instant transfer. The account is open for one hour.</p>
<form method="post" action="${sessionAction(context, 'pay/bank-transfer')}">
${csrfField(context.csrfToken)}
<button type="submit" class="button" id="pay-bank">Get account details</button>
</form>`;
  return methodPane('bank', 'Bank transfer', open, form, true);
}

/** A bank transfer attempt waiting for the customer's transfer into its one-time account. */
export interface TransferWaiting {
  bankName: string;
  accountNumber: string;
  accountName: string;
  /** How long the account stays open, when the page was made. */
  secondsLeft: number;
  /** Where "Use another method" posts. */
  abandonAction: string;
  statusUrl: string;
  /** Where "No, keep paying" leads back to: this page. */
  keepPayingUrl: string;
}

/** A detail the customer copies into their bank's app: the copy button is shown by checkout.js (it needs the clipboard). */
function copyRow(label: string, id: string, value: string): SafeHtml {
  return html`<div><dt>${label}</dt><dd><span class="copy-value" id="${id}">${value}</span><button type="button" class="copy" data-copy="${value}" aria-label="Copy ${label.toLowerCase()}" hidden>Copy</button></dd></div>`;
}

/**
 * What to transfer and where, polled like the mobile money approval page until the transfer
 * arrives or the account expires; the <noscript> refresh does the same more slowly. The customer
 * can set the account aside to pay another way without cancelling the payment.
 */
export function renderBankTransferPage(
  summary: SessionSummary,
  context: PageContext,
  transfer: TransferWaiting,
): SafeHtml {
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status">
<div id="transfer" data-status-url="${transfer.statusUrl}">
<div class="spinner-wrap"><span class="spinner"></span>${ICONS.largeBank}</div>
<h1 class="page-title">Pay by bank transfer</h1>
<p class="lead">Transfer exactly this amount to the account below with your bank&rsquo;s instant transfer. Any other amount is sent back.</p>
<dl class="details transfer-details">
${copyRow('Amount', 'transfer-amount', summary.amountText)}
${copyRow('Account number', 'account-number', transfer.accountNumber)}
<div><dt>Bank</dt><dd id="bank-name">${transfer.bankName}</dd></div>
${copyRow('Account name', 'account-name', transfer.accountName)}
</dl>
<p class="copied" id="copied" role="status"></p>
<p class="waiting" role="status">Waiting for your transfer&hellip;</p>
<p class="elapsed">The account closes in <span class="timer" id="time-left" data-seconds="${transfer.secondsLeft}">${minutesAndSeconds(transfer.secondsLeft)}</span></p>
</div>
<div class="no-prompt">
<p>Would you rather pay another way?</p>
<form method="post" action="${transfer.abandonAction}">${csrfField(context.csrfToken)}<button type="submit" class="button button-secondary" id="use-another-method">Use another method</button></form>
</div>
${cancelControl(context, summary, transfer.keepPayingUrl)}
</div>`;
  return page('Pay by bank transfer', body, {
    head: html`\n<noscript><meta http-equiv="refresh" content="5"></noscript>`,
    merchant: summary,
  });
}

/** A mobile money attempt waiting for the customer to approve it on the phone. */
export interface PhoneApproval {
  awaiting: 'phone';
  operator: 'airtel' | 'tnm' | null;
  /** The number as stored, masked (`0990xxxx00`); checkout.js shows the full number the customer typed in this tab. */
  maskedNumber: string;
  /** How long the request has been waiting, when the page was made. */
  waitedSeconds: number;
  /** Where "Use a different number" posts. */
  abandonAction: string;
}

/** A card attempt whose one-time code is with the issuer. */
export interface CardApproval {
  awaiting: 'card';
  cardText: string;
}

export type ApprovalState = (PhoneApproval | CardApproval) & {
  /** JSON status route to poll. */
  statusUrl: string;
  /** Where "No, keep paying" leads back to: this page. */
  keepPayingUrl: string;
};

/** `0:07`, `1:32`. */
function minutesAndSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function phoneWaiting(summary: SessionSummary, approval: PhoneApproval): SafeHtml {
  const mark = approval.operator ? brandMarks([approval.operator], 'Network') : '';
  const masked = approval.maskedNumber;
  return html`<h1 class="page-title">Approve the payment on your phone</h1>
<p class="amount amount-inline">${summary.amountText}</p>
<p class="lead">We sent a payment request to</p>
<div class="sent-to">${mark}<strong class="number" id="sent-to" data-masked="${masked}">${masked}</strong></div>
<p class="lead">Enter your PIN on your phone to approve it.</p>
<p class="waiting" role="status">Waiting for your approval&hellip;</p>
<p class="elapsed"><span class="timer" id="elapsed" data-seconds="${approval.waitedSeconds}">${minutesAndSeconds(approval.waitedSeconds)}</span> so far &middot; it usually takes under a minute</p>`;
}

function cardWaiting(summary: SessionSummary, approval: CardApproval): SafeHtml {
  return html`<h1 class="page-title">Confirming your card payment</h1>
<p class="amount amount-inline">${summary.amountText}</p>
<p class="lead">Your card issuer is confirming the payment with <strong class="instrument">${approval.cardText}</strong>. This takes a few seconds.</p>
<p class="waiting" role="status">Waiting for your card issuer&hellip;</p>`;
}

/**
 * Polled by checkout.js; the <noscript> refresh does the same job, more slowly, without it. A
 * customer whose phone shows no prompt (a mistyped number, a prompt lost on the network) can go
 * back to the form without cancelling: the request in flight is set aside, not cancelled.
 */
export function renderApprovalPage(summary: SessionSummary, context: PageContext, approval: ApprovalState): SafeHtml {
  const phone = approval.awaiting === 'phone';
  const noPrompt = phone
    ? html`<div class="no-prompt">
<p>Didn&rsquo;t get a prompt?</p>
<form method="post" action="${approval.abandonAction}">${csrfField(context.csrfToken)}<button type="submit" class="button button-secondary" id="use-another-number">Use a different number</button></form>
</div>`
    : '';
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status">
<div id="approval" data-status-url="${approval.statusUrl}">
<div class="spinner-wrap"><span class="spinner"></span>${phone ? ICONS.largePhone : ICONS.card}</div>
${phone ? phoneWaiting(summary, approval) : cardWaiting(summary, approval)}
</div>
${noPrompt}
${cancelControl(context, summary, approval.keepPayingUrl)}
</div>`;
  const title = phone ? 'Approve the payment on your phone' : 'Confirming your card payment';
  return page(title, body, {
    head: html`\n<noscript><meta http-equiv="refresh" content="3"></noscript>`,
    merchant: summary,
  });
}

export interface OtpState {
  cardText: string;
  /** Where the OTP form posts. */
  action: string;
  error: string | null;
  testOtp: string | null;
  /** Where "No, keep paying" leads back to: this page. */
  keepPayingUrl: string;
}

export function renderOtpPage(summary: SessionSummary, context: PageContext, otp: OtpState): SafeHtml {
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body">
<h1 class="page-title">Enter the one-time code</h1>
<p class="lead">Your card issuer sent a code to confirm paying <strong>${summary.amountText}</strong> with <strong class="instrument" id="otp-card">${otp.cardText}</strong>.</p>
${otp.error && attemptAlert(otp.error)}
<form method="post" action="${otp.action}">
${csrfField(context.csrfToken)}
<div class="field"><label for="otp">One-time code</label>
<input class="input otp" id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required autofocus>
${otp.testOtp && html`<p class="hint test-hint">Test code: <code>${otp.testOtp}</code></p>`}</div>
<button type="submit" class="button" id="submit-otp">Confirm payment</button>
</form>
${cancelControl(context, summary, otp.keepPayingUrl)}
</div>`;
  return page('Enter the one-time code', body, { merchant: summary });
}

export interface CancelState {
  /** Where "No, keep paying" leads: the attempt in flight, or the payment page. */
  keepPayingUrl: string;
  /** A mobile money request is out: approving it after cancelling gives the money back. */
  requestOut: boolean;
}

/** The confirmation step of cancelling, for a browser without JavaScript (checkout.js asks in place). */
export function renderCancelPage(summary: SessionSummary, context: PageContext, cancel: CancelState): SafeHtml {
  const merchant = summary.merchantName;
  const late = cancel.requestOut
    ? ' If you approve the request on your phone after cancelling, the money is given back.'
    : '';
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status" id="cancel-page">
${statusBlock({ tone: 'neutral', icon: ICONS.ban, heading: 'Cancel this payment?', sentence: html`You will go back to ${merchant} without paying ${summary.amountText}.${late}` })}
${cancelActions(context, cancel.keepPayingUrl)}
</div>`;
  return page('Cancel this payment?', body, { merchant: summary });
}

export interface ReceiptState {
  paidWith: string;
  completedAt: string;
  /** The merchant's callback_url with tx_ref, transaction_id and status, or null for legacy sessions without one. */
  continueUrl: string | null;
}

export function renderReceiptPage(summary: SessionSummary, receipt: ReceiptState): SafeHtml {
  const next = receipt.continueUrl
    ? html`<a class="button" id="continue" href="${receipt.continueUrl}">Return to ${summary.merchantName}</a>`
    : html`<p class="closing">You can close this page.</p>`;
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status" id="receipt">
${statusBlock({
  tone: 'success',
  icon: ICONS.check,
  heading: 'Payment received',
  amountText: summary.amountText,
  sentence: html`Thank you, ${summary.customerName}. ${summary.merchantName} has been paid.`,
})}
${detailList([
  ['Paid with', receipt.paidWith],
  ['Reference', summary.reference],
  ['Merchant reference', summary.txRef],
  ['Date', receipt.completedAt],
])}
${next}
</div>`;
  return page('Payment received', body, { merchant: summary });
}

export interface EndedState {
  why: 'failed' | 'cancelled' | 'expired';
  /** The merchant's return_url with tx_ref and status=failed, or null for legacy sessions without one. */
  returnUrl: string | null;
  /** Right after the last failed try: what went wrong with it. */
  lastFailure?: Advice;
  /** Right after the last failed try: the browser goes on to `returnUrl` by itself after this long. */
  returnAfterSeconds?: number;
}

const ENDINGS = {
  failed: { heading: 'This payment did not go through', icon: ICONS.cross, tone: 'failed', next: 'to try again' },
  cancelled: { heading: 'Payment cancelled', icon: ICONS.ban, tone: 'neutral', next: 'if you still want to pay' },
  expired: {
    heading: 'This payment link has expired',
    icon: ICONS.clock,
    tone: 'neutral',
    next: 'for a new payment link',
  },
} as const;

export function renderEndedPage(summary: SessionSummary, ended: EndedState): SafeHtml {
  const { heading, icon, tone, next } = ENDINGS[ended.why];
  const merchant = summary.merchantName;
  const backTo = ended.why === 'expired' ? html`Ask ${merchant} ${next}.` : html`Go back to ${merchant} ${next}.`;
  const sentence = ended.lastFailure
    ? html`${ended.lastFailure.happened}. That was the last try, so this payment has ended. ${backTo}`
    : backTo;
  const back = ended.returnUrl
    ? html`<a class="button" id="return" href="${ended.returnUrl}">Return to ${merchant}</a>`
    : html`<p class="closing">You can close this page.</p>`;
  const countdown =
    ended.returnUrl && ended.returnAfterSeconds
      ? html`<div class="countdown" id="countdown" data-seconds="${ended.returnAfterSeconds}"><p id="countdown-text">Taking you back to ${merchant} in <span id="countdown-seconds">${ended.returnAfterSeconds}</span> seconds.</p>
<button type="button" class="link-button" id="stay" hidden>Stay on this page</button></div>`
      : '';
  // checkout.js counts down and goes, and lets the customer stop it (WCAG 2.2.1: a time limit
  // can be turned off); a browser without it is taken by the refresh, which nothing can stop.
  const head = countdown
    ? html`\n<noscript><meta http-equiv="refresh" content="${ended.returnAfterSeconds};url=${ended.returnUrl!}"></noscript>`
    : undefined;
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status" id="ended">
${statusBlock({ tone, icon, heading, sentence })}
${detailList([
  ['Amount', summary.amountText],
  ['Reference', summary.reference],
])}
${back}
${countdown}
</div>`;
  return page(heading, body, { head, merchant: summary });
}

export function renderNotFoundPage(): SafeHtml {
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.search, heading: 'Payment link not found', sentence: 'Check that you opened the whole link you were given, or ask the merchant for a new one.' })}
</div>`;
  return page('Payment link not found', body);
}

/** When we cannot serve the page (the database is out of reach, or a fault of ours): a page, never JSON, for a customer's browser. */
export function renderUnavailablePage(): SafeHtml {
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.clock, heading: 'Payments are paused for a moment', sentence: 'Please try again in a minute. A payment you already approved is not lost: open this link again to see how it ended.' })}
</div>`;
  return page('Payments are paused for a moment', body);
}

/** When a form's anti-forgery token does not match (a stale tab, or a forged request). */
export function renderForbiddenPage(checkoutUrl: string | null): SafeHtml {
  const back = checkoutUrl ? html`<a class="button" id="back" href="${checkoutUrl}">Back to the payment page</a>` : '';
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.clock, heading: 'This form has expired', sentence: 'For your safety, this form was not sent. Open the payment page again and try once more.' })}
${back}
</div>`;
  return page('This form has expired', body);
}

const asset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

/** Static files served under /checkout/assets/. Read once at start-up; they are small and never change while running. */
export const ASSETS: Record<string, { contentType: string; body: string }> = {
  'checkout.css': { contentType: 'text/css; charset=utf-8', body: asset('checkout.css') },
  'checkout.js': { contentType: 'text/javascript; charset=utf-8', body: asset('checkout.js') },
};
