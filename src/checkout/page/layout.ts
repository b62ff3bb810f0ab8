/**
 * The pieces every checkout page is built from: the document shell, the merchant's header, the
 * TEST MODE banner and the small forms. Every merchant- or customer-supplied string is escaped
 * here or by the caller, never trusted as HTML.
 */
import { escapeHtml } from '../../shared/html.ts';
import { isHttpUrl } from '../../shared/urls.ts';
import { htmlDocument } from '../../web/document.ts';
import { isBrandColor } from '../../merchants/merchant-service.ts';
import { ICONS } from './icons.ts';
import type { PageContext, SessionSummary, TestInstruments } from './page-model.ts';

/**
 * A checkout page. The script is loaded in <head> without `defer` on purpose: it marks the page
 * as scripted before the first paint, so the CSS can hide the closed payment method without the
 * page jumping. Everything it does after that waits for DOMContentLoaded. A session's pages say
 * below the card whom to ask about the payment.
 */
export function page(title: string, card: string, options: { head?: string; merchant?: SessionSummary } = {}): string {
  return htmlDocument({
    title,
    stylesheet: '/checkout/assets/checkout.css',
    script: '/checkout/assets/checkout.js',
    head: options.head,
    body: `<main class="card">
${card}
</main>
<footer class="page-foot">
${options.merchant ? merchantContact(options.merchant) : ''}<p class="secure">${ICONS.lock}Secured by Lipira</p>
</footer>`,
  });
}

/** The merchant's own address, for questions about the order: the gateway cannot answer those. */
function merchantContact(summary: SessionSummary): string {
  const email = escapeHtml(summary.merchantEmail);
  return `<p class="contact">Questions about this payment? Ask ${escapeHtml(summary.merchantName)} at <a href="mailto:${email}">${email}</a></p>
`;
}

/**
 * The merchant's logo, or their initial when there is no usable logo, so the header keeps its
 * shape. The initial waits, hidden, behind a logo: checkout.js shows it if the logo fails to load.
 */
function merchantMark(summary: SessionSummary): string {
  const initial = Array.from(summary.merchantName.trim())[0] ?? '';
  const monogram = (hidden: boolean) =>
    `<span class="logo monogram" id="merchant-monogram" aria-hidden="true"${hidden ? ' hidden' : ''}>${escapeHtml(initial.toUpperCase())}</span>`;
  // Only an absolute http(s) URL becomes an <img>: javascript:, relative paths and junk are dropped.
  if (summary.logoUrl && isHttpUrl(summary.logoUrl)) {
    return `<img class="logo" id="merchant-logo" src="${escapeHtml(summary.logoUrl)}" alt="" width="40" height="40">${monogram(true)}`;
  }
  return monogram(false);
}

/** Who is being paid: the logo and the merchant's name. */
export function merchantBar(summary: SessionSummary): string {
  return `<div class="merchant">${merchantMark(summary)}<span class="merchant-name">${escapeHtml(summary.merchantName)}</span></div>`;
}

/** The top of the card on every session page; `extra` is what the page adds under the merchant's name. */
export function cardHead(summary: SessionSummary, extra = ''): string {
  return `${brandAccent(summary)}<header class="card-head">${merchantBar(summary)}${extra}</header>`;
}

/**
 * The merchant's colour as a bar across the top of the card. Drawn by an SVG's fill attribute, as
 * the page's CSP allows no inline style; only ever a decoration, so any colour keeps the text readable.
 */
function brandAccent(summary: SessionSummary): string {
  const color = summary.brandColor;
  if (!color || !isBrandColor(color)) return '';
  return `<svg class="brand-accent" aria-hidden="true" focusable="false" viewBox="0 0 10 1" preserveAspectRatio="none"><rect width="10" height="1" fill="${color}"/></svg>`;
}

export function testBanner(summary: SessionSummary, instruments: TestInstruments | null = null): string {
  if (summary.mode !== 'test') return '';
  return `<div class="test-banner" role="note">
<p><strong class="test-badge">TEST MODE</strong> Payments here are simulated: no real money moves.</p>
${instruments ? renderedOnce(instruments) : ''}
</div>`;
}

const outcomeBadge = (outcome: string) =>
  `<span class="outcome${outcome === 'success' ? ' outcome-ok' : ''}">${escapeHtml(outcome)}</span>`;

/** The sandbox's instruments never change while the process runs: rendered once per list, not per page view. */
const renderedInstruments = new WeakMap<TestInstruments, string>();

function renderedOnce(instruments: TestInstruments): string {
  let html = renderedInstruments.get(instruments);
  if (html === undefined) renderedInstruments.set(instruments, (html = testInstrumentList(instruments)));
  return html;
}

function testInstrumentList({ numbers, cards, otp, transfers }: TestInstruments): string {
  const numberItems = numbers
    .map(
      (n) =>
        `<li><code>${escapeHtml(n.number)}</code><span class="muted">${escapeHtml(n.operator)}</span>${outcomeBadge(n.outcome)}</li>`,
    )
    .join('');
  const cardItems = cards
    .map(
      (c) =>
        `<li><code>${escapeHtml(c.number)}</code><span class="muted">${escapeHtml(c.brand)}</span>${outcomeBadge(c.outcome)}</li>`,
    )
    .join('');
  return `<details class="test-instruments">
<summary>Test numbers and cards</summary>
<h2>Mobile money</h2>
<ul>${numberItems}</ul>
<h2>Cards</h2>
<ul>${cardItems}</ul>
<p>Any future expiry date and any CVV. One-time code: <code>${escapeHtml(otp)}</code></p>
<h2>Bank transfer</h2>
<p>The exact amount arrives by itself a few seconds after the account is shown, unless the amount's kwacha end in: ${transfers.map((t) => `<code>${escapeHtml(t.ending)}</code> (e.g. ${escapeHtml(t.example)}): ${escapeHtml(t.outcome)}`).join('; ')}.</p>
</details>`;
}

/** Why the last attempt failed or was refused, and (after a failure) how many tries are left. */
export function errorBox(message: string, triesLeft: string | null = null): string {
  const tries = triesLeft ? ` <strong class="tries-left">${escapeHtml(triesLeft)}.</strong>` : '';
  return `<div class="error" role="alert">${ICONS.alert}<p>${escapeHtml(message)}${tries}</p></div>`;
}

export function csrfField(context: PageContext): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(context.csrfToken)}">`;
}

/** A path under this session's checkout page, ready for an attribute. */
export function sessionAction(context: PageContext, rest: string): string {
  return escapeHtml(`/checkout/${encodeURIComponent(context.sessionId)}/${rest}`);
}

/**
 * Cancelling asks first. Without JavaScript the link opens the confirmation page; checkout.js
 * shows the same question in place instead, saving a slow phone the round trip.
 */
export function cancelControl(context: PageContext, summary: SessionSummary, keepPayingUrl: string): string {
  return `<div class="cancel">
<a class="link-button" id="cancel" href="${sessionAction(context, 'cancel')}">Cancel payment</a>
${cancelQuestion(context, summary, keepPayingUrl)}
</div>`;
}

/** The question, hidden in a page until checkout.js shows it in place of the link. */
function cancelQuestion(context: PageContext, summary: SessionSummary, keepPayingUrl: string): string {
  return `<div class="cancel-confirm" id="cancel-confirm" hidden>
<p class="cancel-question" id="cancel-question" tabindex="-1"><strong>Cancel this payment?</strong> You will go back to ${escapeHtml(summary.merchantName)} without paying ${escapeHtml(summary.amountText)}.</p>
${cancelActions(context, keepPayingUrl)}
</div>`;
}

/** The two answers: keep paying (the safe one, first), or cancel for good. */
export function cancelActions(context: PageContext, keepPayingUrl: string): string {
  return `<div class="cancel-actions">
<a class="button" id="keep-paying" href="${escapeHtml(keepPayingUrl)}">No, keep paying</a>
<form method="post" action="${sessionAction(context, 'cancel')}">${csrfField(context)}<button type="submit" class="button button-danger" id="confirm-cancel">Yes, cancel payment</button></form>
</div>`;
}

/** Operator and card-brand marks, drawn by the stylesheet in each brand's colour with its name: no third-party image. */
export function brandMarks(brands: ReadonlyArray<'airtel' | 'tnm' | 'visa' | 'mastercard'>, label: string): string {
  const marks = brands.map((brand) => `<li class="mark mark-${brand}">${BRAND_LABELS[brand]}</li>`).join('');
  return `<ul class="marks" aria-label="${escapeHtml(label)}">${marks}</ul>`;
}

const BRAND_LABELS = { airtel: 'Airtel Money', tnm: 'TNM Mpamba', visa: 'Visa', mastercard: 'Mastercard' } as const;

interface StatusBlock {
  tone: 'success' | 'failed' | 'neutral';
  icon: string;
  heading: string;
  /** Shown large under the heading when the amount is the point of the page. */
  amountText?: string;
  /** HTML: callers escape what they put in it. */
  sentence: string;
}

/** A centred icon, heading and sentence: the shape of every page that reports rather than asks. */
export function statusBlock({ tone, icon, heading, amountText, sentence }: StatusBlock): string {
  return `<div class="status-icon status-${tone}">${icon}</div>
<h1 class="page-title">${escapeHtml(heading)}</h1>
${amountText ? `<p class="amount amount-inline">${escapeHtml(amountText)}</p>` : ''}
<p class="lead">${sentence}</p>`;
}

/** A label/value list (the receipt); values are escaped here. */
export function detailList(rows: ReadonlyArray<[string, string]>): string {
  const items = rows
    .map(([label, value]) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`)
    .join('');
  return `<dl class="details">${items}</dl>`;
}
