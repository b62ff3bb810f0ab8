/**
 * The 3-D Secure page of a direct card charge (`/3ds/auth`): the checkout page's shell, styles
 * and pieces, so a customer sent here by a merchant sees the same gateway as on a checkout.
 * Built with the `html` tag, so everything the merchant or the customer supplied is escaped.
 */
import { attemptAlert, cardHead, page, statusBlock, testBanner } from '../checkout/page/layout.ts';
import { ICONS } from '../checkout/page/icons.ts';
import type { SessionSummary } from '../checkout/page/page-model.ts';
import { csrfField } from '../web/components.ts';
import { html, type SafeHtml } from '../web/html.ts';

export interface CodeFormState {
  csrfToken: string;
  /** The form's own URL, reference and all. */
  action: string;
  /** `Visa •••• 4242`. */
  cardText: string;
  error: string | null;
  /** `2 tries left`, after a wrong code. */
  triesLeft: string | null;
  testOtp: string | null;
}

export function renderCodePage(summary: SessionSummary, form: CodeFormState): SafeHtml {
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body">
<h1 class="page-title">Confirm your card payment</h1>
<p class="lead">Your card issuer sent a one-time code to confirm paying <strong>${summary.amountText}</strong> to <strong>${summary.merchantName}</strong> with <strong class="instrument" id="otp-card">${form.cardText}</strong>.</p>
${form.error && attemptAlert(form.error, form.triesLeft)}
<form method="post" action="${form.action}">
${csrfField(form.csrfToken)}
<div class="field"><label for="otp">One-time code</label>
<input class="input otp" id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required autofocus>
${form.testOtp ? html`<p class="hint test-hint">Test code: <code>${form.testOtp}</code></p>` : ''}</div>
<button type="submit" class="button" id="submit-otp">Confirm payment</button>
</form>
</div>`;
  return page('Confirm your card payment', body, { merchant: summary });
}

/** While another tab's code is with the issuer: the page looks again by itself. */
export function renderConfirmingPage(summary: SessionSummary): SafeHtml {
  const body = html`${cardHead(summary)}
<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.clock, heading: 'Confirming with your bank', sentence: 'Your one-time code is being checked. This page updates by itself.' })}
</div>`;
  return page('Confirming with your bank', body, {
    merchant: summary,
    head: html`\n<meta http-equiv="refresh" content="2">`,
  });
}

export function renderExpiredPage(): SafeHtml {
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.clock, heading: 'This payment link has expired', sentence: 'Card payments must be confirmed within 30 minutes. Go back to the shop and pay again: this payment was not taken.' })}
</div>`;
  return page('This payment link has expired', body);
}

export function renderUnknownLinkPage(): SafeHtml {
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.search, heading: 'Payment link not found', sentence: 'Check that you opened the whole link you were given, or go back to the shop and pay again.' })}
</div>`;
  return page('Payment link not found', body);
}

export function renderForbiddenCodePage(retryUrl: string): SafeHtml {
  const body = html`<div class="card-body status">
${statusBlock({ tone: 'neutral', icon: ICONS.clock, heading: 'This form has expired', sentence: 'For your safety, the code was not sent. Open the page again and enter it once more.' })}
<a class="button" id="back" href="${retryUrl}">Back to the code</a>
</div>`;
  return page('This form has expired', body);
}
