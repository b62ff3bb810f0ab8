/**
 * The pieces every checkout page is built from: the document shell, the merchant's header, the
 * TEST MODE banner and the small forms. Built with the `html` tag, so every merchant- or
 * customer-supplied string is escaped, never trusted as HTML.
 */
import { isHttpUrl } from '../../shared/urls.ts';
import { csrfField } from '../../web/components.ts';
import { htmlDocument } from '../../web/document.ts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { isBrandColor } from '../../merchants/merchant-service.ts';
import { ICONS } from './icons.ts';
import type { PageContext, SessionSummary, TestInstruments } from './page-model.ts';

/**
 * A checkout page. The script is loaded in <head> without `defer` on purpose: it marks the page
 * as scripted before the first paint, so the CSS can hide the closed payment method without the
 * page jumping. Everything it does after that waits for DOMContentLoaded. A session's pages say
 * below the card whom to ask about the payment.
 */
export function page(
  title: string,
  card: SafeHtml,
  options: { head?: SafeHtml; merchant?: SessionSummary } = {},
): SafeHtml {
  return htmlDocument({
    title,
    stylesheet: '/checkout/assets/checkout.css',
    script: '/checkout/assets/checkout.js',
    head: options.head,
    body: html`<main class="card">
${card}
</main>
<footer class="page-foot">
${options.merchant && merchantContact(options.merchant)}<p class="secure">${ICONS.lock}Secured by Lipira</p>
</footer>`,
  });
}

/** The merchant's own address, for questions about the order: the gateway cannot answer those. */
function merchantContact(summary: SessionSummary): SafeHtml {
  const email = summary.merchantEmail;
  return html`<p class="contact">Questions about this payment? Ask ${summary.merchantName} at <a href="mailto:${email}">${email}</a></p>
`;
}

/**
 * The merchant's logo, or their initial when there is no usable logo, so the header keeps its
 * shape. The initial waits, hidden, behind a logo: checkout.js shows it if the logo fails to load.
 */
function merchantMark(summary: SessionSummary): SafeHtml {
  const initial = Array.from(summary.merchantName.trim())[0] ?? '';
  const monogram = (hidden: boolean) =>
    html`<span class="logo monogram" id="merchant-monogram" aria-hidden="true"${hidden && html` hidden`}>${initial.toUpperCase()}</span>`;
  // Only an absolute http(s) URL becomes an <img>: javascript:, relative paths and junk are dropped.
  if (summary.logoUrl && isHttpUrl(summary.logoUrl)) {
    return html`<img class="logo" id="merchant-logo" src="${summary.logoUrl}" alt="" width="40" height="40">${monogram(true)}`;
  }
  return monogram(false);
}

/** Who is being paid: the logo and the merchant's name. */
export function merchantBar(summary: SessionSummary): SafeHtml {
  return html`<div class="merchant">${merchantMark(summary)}<span class="merchant-name">${summary.merchantName}</span></div>`;
}

/** The top of the card on every session page; `extra` is what the page adds under the merchant's name. */
export function cardHead(summary: SessionSummary, extra: SafeHtml | null = null): SafeHtml {
  return html`${brandAccent(summary)}<header class="card-head">${merchantBar(summary)}${extra}</header>`;
}

/**
 * The merchant's colour as a bar across the top of the card. Drawn by an SVG's fill attribute, as
 * the page's CSP allows no inline style; only ever a decoration, so any colour keeps the text readable.
 */
function brandAccent(summary: SessionSummary): SafeHtml | null {
  const color = summary.brandColor;
  if (!color || !isBrandColor(color)) return null;
  return html`<svg class="brand-accent" aria-hidden="true" focusable="false" viewBox="0 0 10 1" preserveAspectRatio="none"><rect width="10" height="1" fill="${color}"/></svg>`;
}

export function testBanner(summary: SessionSummary, instruments: TestInstruments | null = null): SafeHtml | null {
  if (summary.mode !== 'test') return null;
  return html`<div class="test-banner" role="note">
<p><strong class="test-badge">TEST MODE</strong> Payments here are simulated: no real money moves.</p>
${instruments && renderedOnce(instruments)}
</div>`;
}

const outcomeBadge = (outcome: string) =>
  html`<span class="outcome${outcome === 'success' && ' outcome-ok'}">${outcome}</span>`;

/** The sandbox's instruments never change while the process runs: rendered once per list, not per page view. */
const renderedInstruments = new WeakMap<TestInstruments, SafeHtml>();

function renderedOnce(instruments: TestInstruments): SafeHtml {
  let html = renderedInstruments.get(instruments);
  if (html === undefined) renderedInstruments.set(instruments, (html = testInstrumentList(instruments)));
  return html;
}

function testInstrumentList({ numbers, cards, otp, transfers }: TestInstruments): SafeHtml {
  const numberItems = numbers.map(
    (n) => html`<li><code>${n.number}</code><span class="muted">${n.operator}</span>${outcomeBadge(n.outcome)}</li>`,
  );
  const cardItems = cards.map(
    (c) => html`<li><code>${c.number}</code><span class="muted">${c.brand}</span>${outcomeBadge(c.outcome)}</li>`,
  );
  const endings = transfers.map((t) => html`<code>${t.ending}</code> (e.g. ${t.example}): ${t.outcome}`);
  return html`<details class="test-instruments">
<summary>Test numbers and cards</summary>
<h2>Mobile money</h2>
<ul>${numberItems}</ul>
<h2>Cards</h2>
<ul>${cardItems}</ul>
<p>Any future expiry date and any CVV. One-time code: <code>${otp}</code></p>
<h2>Bank transfer</h2>
<p>The exact amount arrives by itself a few seconds after the account is shown, unless the amount's kwacha end in: ${joinHtml(endings, '; ')}.</p>
</details>`;
}

/**
 * Why the last attempt failed or was refused, and (after a failure) how many tries are left: an
 * alert with an icon, where the dashboard's forms have a line (`errorBox`).
 */
export function attemptAlert(message: string, triesLeft: string | null = null): SafeHtml {
  const tries = triesLeft && html` <strong class="tries-left">${triesLeft}.</strong>`;
  return html`<div class="error" role="alert">${ICONS.alert}<p>${message}${tries}</p></div>`;
}

/** A path under this session's checkout page. */
export function sessionAction(context: PageContext, rest: string): string {
  return `/checkout/${encodeURIComponent(context.sessionId)}/${rest}`;
}

/**
 * Cancelling asks first. Without JavaScript the link opens the confirmation page; checkout.js
 * shows the same question in place instead, saving a slow phone the round trip.
 */
export function cancelControl(context: PageContext, summary: SessionSummary, keepPayingUrl: string): SafeHtml {
  return html`<div class="cancel">
<a class="link-button" id="cancel" href="${sessionAction(context, 'cancel')}">Cancel payment</a>
${cancelQuestion(context, summary, keepPayingUrl)}
</div>`;
}

/** The question, hidden in a page until checkout.js shows it in place of the link. */
function cancelQuestion(context: PageContext, summary: SessionSummary, keepPayingUrl: string): SafeHtml {
  return html`<div class="cancel-confirm" id="cancel-confirm" hidden>
<p class="cancel-question" id="cancel-question" tabindex="-1"><strong>Cancel this payment?</strong> You will go back to ${summary.merchantName} without paying ${summary.amountText}.</p>
${cancelActions(context, keepPayingUrl)}
</div>`;
}

/** The two answers: keep paying (the safe one, first), or cancel for good. */
export function cancelActions(context: PageContext, keepPayingUrl: string): SafeHtml {
  return html`<div class="cancel-actions">
<a class="button" id="keep-paying" href="${keepPayingUrl}">No, keep paying</a>
<form method="post" action="${sessionAction(context, 'cancel')}">${csrfField(context.csrfToken)}<button type="submit" class="button button-danger" id="confirm-cancel">Yes, cancel payment</button></form>
</div>`;
}

/** Operator and card-brand marks, drawn by the stylesheet in each brand's colour with its name: no third-party image. */
export function brandMarks(brands: ReadonlyArray<'airtel' | 'tnm' | 'visa' | 'mastercard'>, label: string): SafeHtml {
  const marks = brands.map((brand) => html`<li class="mark mark-${brand}">${BRAND_LABELS[brand]}</li>`);
  return html`<ul class="marks" aria-label="${label}">${marks}</ul>`;
}

const BRAND_LABELS = { airtel: 'Airtel Money', tnm: 'TNM Mpamba', visa: 'Visa', mastercard: 'Mastercard' } as const;

interface StatusBlock {
  tone: 'success' | 'failed' | 'neutral';
  icon: SafeHtml;
  heading: string;
  /** Shown large under the heading when the amount is the point of the page. */
  amountText?: string;
  /** Text, or html for a sentence with markup in it. */
  sentence: HtmlValue;
}

/** A centred icon, heading and sentence: the shape of every page that reports rather than asks. */
export function statusBlock({ tone, icon, heading, amountText, sentence }: StatusBlock): SafeHtml {
  return html`<div class="status-icon status-${tone}">${icon}</div>
<h1 class="page-title">${heading}</h1>
${amountText && html`<p class="amount amount-inline">${amountText}</p>`}
<p class="lead">${sentence}</p>`;
}

/** A label/value list (the receipt). */
export function detailList(rows: ReadonlyArray<[string, string]>): SafeHtml {
  const items = rows.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`);
  return html`<dl class="details">${items}</dl>`;
}
