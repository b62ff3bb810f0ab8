/**
 * What every dashboard page shares: the document, the header with the test/live switch and the
 * navigation, and the small pieces forms and tables are built from. Pages are built with the
 * `html` tag, so every string a user, merchant or request supplied is escaped.
 */
import type { Mode } from '../shared/ids.ts';
import { csrfField } from '../web/components.ts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../web/html.ts';
import { htmlDocument } from '../web/document.ts';
import { may, type Permission } from './access.ts';

/** Who is signed in and whose pages they see, as the header shows them. */
export interface Viewer {
  email: string;
  role: string;
  /** The merchant whose pages these are (an operator's acting-for merchant), or null. */
  merchantName: string | null;
  mode: Mode;
  csrf: string;
  /** The path of the page, to mark its navigation link and come back to after switching mode. */
  path: string;
}

const SECTIONS: Array<{ href: string; label: string; need: Permission; merchant: boolean }> = [
  { href: '/dashboard', label: 'Overview', need: 'read', merchant: true },
  { href: '/dashboard/payments', label: 'Payments', need: 'read', merchant: true },
  { href: '/dashboard/customers', label: 'Customers', need: 'read', merchant: true },
  { href: '/dashboard/payment-links', label: 'Payment links', need: 'read', merchant: true },
  { href: '/dashboard/payouts', label: 'Payouts', need: 'read', merchant: true },
  { href: '/dashboard/balance', label: 'Balance', need: 'read', merchant: true },
  { href: '/dashboard/developers', label: 'Developers', need: 'read', merchant: true },
  { href: '/dashboard/settings', label: 'Settings', need: 'read', merchant: true },
  { href: '/dashboard/audit', label: 'Audit log', need: 'read', merchant: true },
  { href: '/dashboard/operator', label: 'Operator', need: 'operate', merchant: false },
];

/**
 * The notice a page's `?done=` names, or null. Only the table's own names count: `constructor`
 * or `__proto__` would otherwise find what every object inherits.
 */
export function noticeNamed(notices: Record<string, string>, name: string | undefined): string | null {
  return name !== undefined && Object.hasOwn(notices, name) ? notices[name]! : null;
}

/** The notice of a form sent with the values already saved: nothing is written, not even to the audit log. */
export const NOTHING_CHANGED = 'Nothing changed: that is what was already saved.';

/** What a form carries unseen: the values an earlier step settled, posted back as they were. */
const hiddenFields = (fields: Record<string, string>): SafeHtml[] =>
  Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);

/** A one-button form: every change is a POST carrying the anti-forgery token. */
export function postButton(
  action: string,
  csrf: string,
  label: string,
  kind: 'secondary' | 'danger' | '' = '',
  fields: Record<string, string> = {},
): SafeHtml {
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}${hiddenFields(fields)}<button type="submit"${kind && html` class="${kind}"`}>${label}</button></form>`;
}

export interface ConfirmAction {
  /** Where the one POST that does it goes. */
  action: string;
  csrf: string;
  /** The button, saying what it does: "Refund MWK 400.00", not "OK". */
  label: string;
  /** What the earlier step settled, posted back as it was shown. */
  fields?: Record<string, string>;
  /** A choice still to make on the page itself (the overlap of a secret roll). */
  choices?: SafeHtml;
  /** The page to go back to, nothing done. */
  back: string;
  backLabel?: string;
  kind?: 'danger' | '';
}

/**
 * The end of every confirmation page, for what cannot be undone (a payout, a refund, a secret
 * roll, a member removed, an invitation cancelled): the one form whose POST does it, and a way
 * back that does nothing. The page before it asks with a GET, or a POST that writes nothing.
 */
export function confirmForm(confirm: ConfirmAction): SafeHtml {
  const { action, csrf, label, fields = {}, choices, back, backLabel = 'Cancel', kind = 'danger' } = confirm;
  return html`<form class="confirm" method="post" action="${action}">${csrfField(csrf)}${hiddenFields(fields)}${choices ?? ''}
<p class="actions"><button type="submit"${kind && html` class="${kind}"`}>${label}</button><a class="cancel" href="${back}">${backLabel}</a></p>
</form>`;
}

/** Facts as a list of terms and what each is: a record's page, and what a confirmation page says will happen. */
export function factList(facts: Array<[string, HtmlValue]>): SafeHtml {
  return html`<dl class="facts">${facts.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

/** Every status the dashboard shows, in one set of words: a payment's, a payout's, a refund's, a webhook's, an email's. */
const STATUS_WORDS: Record<string, string> = {
  pending: 'Pending',
  success: 'Successful',
  failed: 'Failed',
  cancelled: 'Cancelled',
  expired: 'Expired',
  delivered: 'Delivered',
  sent: 'Sent',
};

export function statusWord(status: string): string {
  return Object.hasOwn(STATUS_WORDS, status) ? STATUS_WORDS[status]! : status;
}

/** A status as a coloured badge (the stylesheet's `status-<status>`). */
export function statusBadge(status: string): SafeHtml {
  return html`<span class="status status-${status}">${statusWord(status)}</span>`;
}

/** The most columns a table may have and still be a table on a 360 px phone. */
const CARD_COLUMNS = 3;

/**
 * A table of cells (text, or html); `caption` names it for screen readers. A table of more than
 * three columns does not fit a phone: each of its cells carries its column's heading
 * (`data-label`), which the stylesheet shows beside the cell when the rows are laid out as cards
 * on narrow screens, so that no list scrolls sideways there.
 */
export function table(caption: string, headings: string[], rows: HtmlValue[][], empty: string): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  const cards = headings.length > CARD_COLUMNS;
  const head = headings.map((heading) => html`<th scope="col">${heading}</th>`);
  const cell = (value: HtmlValue, index: number) =>
    cards ? html`<td data-label="${headings[index] ?? ''}">${value}</td>` : html`<td>${value}</td>`;
  const body = joinHtml(
    rows.map((cells) => html`<tr>${cells.map(cell)}</tr>`),
    '\n',
  );
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table${cards && html` class="cards-narrow"`}><caption class="visually-hidden">${caption}</caption><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}

/**
 * A button copying `value` (a key, an id), put after the value, which stays selectable text:
 * hidden until dashboard.js shows it where the clipboard can be written; `what` names it
 * ("Copy the public key") and is announced once it is copied.
 */
export function copyButton(value: string, what: string): SafeHtml {
  return html`<button type="button" class="copy secondary" data-copy="${value}" aria-label="Copy the ${what}" hidden>Copy</button>`;
}

/**
 * The header: the brand, whose pages these are and the mode on one line; the sections, the mode
 * switch and the account behind one Menu button (a <details>, so it opens without scripts). Wide
 * screens show the menu's contents in the header itself and no button (the stylesheet's
 * ::details-content); a browser without it keeps the button.
 */
function header(viewer: Viewer): SafeHtml {
  const other: Mode = viewer.mode === 'test' ? 'live' : 'test';
  const links = SECTIONS.filter(
    (section) => may(viewer.role, section.need) && (!section.merchant || viewer.merchantName !== null),
  ).map((section) => {
    const current =
      section.href === '/dashboard'
        ? viewer.path === '/dashboard'
        : viewer.path === section.href || viewer.path.startsWith(`${section.href}/`);
    return html`<a href="${section.href}"${current && html` aria-current="page"`}>${section.label}</a>`;
  });
  const whose = viewer.merchantName === null ? 'Gateway operator' : viewer.merchantName;
  return html`<header class="top">
<a class="brand" href="/dashboard">Lipira</a>
<span class="whose">${whose}</span>
<span class="mode-label mode-${viewer.mode}">${viewer.mode === 'test' ? 'Test' : 'Live'}<span class="mode-word"> mode</span></span>
<details class="menu">
<summary>Menu</summary>
<div class="menu-panel">
<nav class="sections" aria-label="Dashboard">${links}</nav>
<div class="mode-switch">${postButton('/dashboard/mode', viewer.csrf, `Switch to ${other}`, 'secondary', { mode: other, back: viewer.path })}</div>
<nav class="account" aria-label="Account"><span class="who">${viewer.email} · ${viewer.role}</span><a href="/dashboard/account"${viewer.path === '/dashboard/account' && html` aria-current="page"`}>Your account</a>${postButton('/dashboard/logout', viewer.csrf, 'Sign out', 'secondary')}</nav>
</div>
</details>
</header>
${viewer.mode === 'test' && html`<aside class="test-banner" aria-label="Test mode"><p>Test data: nothing here is real money.</p></aside>`}`;
}

/**
 * The whole document. Without a viewer (sign-in, set-password, error pages) it is a narrow card
 * with the brand only; with one, the header, mode switch and navigation come first, and the
 * dashboard's script (dashboard.js), which only adds to a page that works without it.
 */
export function shell(title: string, body: SafeHtml, options: { viewer?: Viewer; wide?: boolean } = {}): SafeHtml {
  const top = options.viewer
    ? header(options.viewer)
    : html`<header class="top"><a class="brand" href="/dashboard">Lipira dashboard</a></header>`;
  const width = options.viewer && options.wide !== false && html` class="wide"`;
  // Where dashboard.js says a value was copied; not a role=status, which a page's own notice is.
  const announcer = options.viewer && html`\n<p class="visually-hidden" id="copied" aria-live="polite"></p>`;
  return htmlDocument({
    title: `${title} · Lipira dashboard`,
    stylesheet: '/dashboard/assets/dashboard.css',
    head: options.viewer ? html`\n<script src="/dashboard/assets/dashboard.js" defer></script>` : undefined,
    bodyClass: options.viewer ? `mode-${options.viewer.mode}` : undefined,
    body: html`${top}
<main${width}>
${body}${announcer}
</main>`,
  });
}
