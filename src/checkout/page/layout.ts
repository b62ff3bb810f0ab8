/**
 * The pieces every checkout page is built from: the document shell, the merchant's header, the
 * TEST MODE banner and the small forms. Every merchant- or customer-supplied string is escaped
 * here or by the caller, never trusted as HTML.
 */
import { escapeHtml } from '../../shared/html.ts';
import { isHttpUrl } from '../../shared/urls.ts';
import { ICONS } from './icons.ts';
import type { PageContext, SessionSummary, TestInstruments } from './page-model.ts';

/**
 * The document shell. The script is loaded in <head> without `defer` on purpose: it marks the
 * page as scripted before the first paint, so the CSS can hide the closed payment method without
 * the page jumping. Everything it does after that waits for DOMContentLoaded. The empty icon
 * spares the browser a /favicon.ico request that would only 404.
 */
export function page(title: string, card: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
<script src="/checkout/assets/checkout.js"></script>${head}
</head>
<body>
<main class="card">
${card}
</main>
<p class="secure">${ICONS.lock}Secure checkout</p>
</body>
</html>
`;
}

/** The merchant's logo, or their initial when there is no usable logo, so the header keeps its shape. */
function merchantMark(summary: SessionSummary): string {
  // Only an absolute http(s) URL becomes an <img>: javascript:, relative paths and junk are dropped.
  if (summary.logoUrl && isHttpUrl(summary.logoUrl)) {
    return `<img class="logo" src="${escapeHtml(summary.logoUrl)}" alt="" width="40" height="40">`;
  }
  const initial = Array.from(summary.merchantName.trim())[0] ?? '';
  return `<span class="logo monogram" aria-hidden="true">${escapeHtml(initial.toUpperCase())}</span>`;
}

/** Who is being paid: the logo and the merchant's name. */
export function merchantBar(summary: SessionSummary): string {
  return `<div class="merchant">${merchantMark(summary)}<span class="merchant-name">${escapeHtml(summary.merchantName)}</span></div>`;
}

/** The top of the card on every session page; `extra` is what the page adds under the merchant's name. */
export function cardHead(summary: SessionSummary, extra = ''): string {
  return `<header class="card-head">${merchantBar(summary)}${extra}</header>`;
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

function testInstrumentList({ numbers, cards, otp }: TestInstruments): string {
  const numberItems = numbers
    .map((n) => `<li><code>${escapeHtml(n.number)}</code><span class="muted">${escapeHtml(n.operator)}</span>${outcomeBadge(n.outcome)}</li>`)
    .join('');
  const cardItems = cards
    .map((c) => `<li><code>${escapeHtml(c.number)}</code><span class="muted">${escapeHtml(c.brand)}</span>${outcomeBadge(c.outcome)}</li>`)
    .join('');
  return `<details class="test-instruments">
<summary>Test numbers and cards</summary>
<h2>Mobile money</h2>
<ul>${numberItems}</ul>
<h2>Cards</h2>
<ul>${cardItems}</ul>
<p>Any future expiry date and any CVV. One-time code: <code>${escapeHtml(otp)}</code></p>
</details>`;
}

export function errorBox(message: string): string {
  return `<div class="error" role="alert">${ICONS.alert}<p>${escapeHtml(message)}</p></div>`;
}

export function csrfField(context: PageContext): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(context.csrfToken)}">`;
}

/** A path under this session's checkout page, ready for an attribute. */
export function sessionAction(context: PageContext, rest: string): string {
  return escapeHtml(`/checkout/${encodeURIComponent(context.sessionId)}/${rest}`);
}

export function cancelForm(context: PageContext): string {
  return `<form class="cancel" method="post" action="${sessionAction(context, 'cancel')}">${csrfField(context)}<button type="submit" id="cancel" class="link-button">Cancel payment</button></form>`;
}

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
  const items = rows.map(([label, value]) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`).join('');
  return `<dl class="details">${items}</dl>`;
}
