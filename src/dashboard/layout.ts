/**
 * What every dashboard page shares: the document, the header with the test/live switch and the
 * navigation, and the small pieces forms and tables are built from. Every string a user,
 * merchant or request supplied is escaped here or by the caller with `escapeHtml`.
 */
import { escapeHtml } from '../shared/html.ts';
import type { Mode } from '../shared/ids.ts';
import { formatMoneyText } from '../shared/money.ts';
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
  { href: '/dashboard/payouts', label: 'Payouts', need: 'read', merchant: true },
  { href: '/dashboard/balance', label: 'Balance', need: 'read', merchant: true },
  { href: '/dashboard/developers', label: 'Developers', need: 'read', merchant: true },
  { href: '/dashboard/settings', label: 'Settings', need: 'read', merchant: true },
  { href: '/dashboard/audit', label: 'Audit log', need: 'read', merchant: true },
  { href: '/dashboard/operator', label: 'Operator', need: 'operate', merchant: false },
];

export function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
}

export function errorBox(message: string | null | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}

/**
 * The notice a page's `?done=` names, or null. Only the table's own names count: `constructor`
 * or `__proto__` would otherwise find what every object inherits.
 */
export function noticeNamed(notices: Record<string, string>, name: string | undefined): string | null {
  return name !== undefined && Object.hasOwn(notices, name) ? notices[name]! : null;
}

/** The notice of a form sent with the values already saved: nothing is written, not even to the audit log. */
export const NOTHING_CHANGED = 'Nothing changed: that is what was already saved.';

export function noticeBox(message: string | null | undefined): string {
  return message ? `<p class="notice" role="status">${escapeHtml(message)}</p>` : '';
}

/** A one-button form: every change is a POST carrying the anti-forgery token. */
export function postButton(
  action: string,
  csrf: string,
  label: string,
  kind: 'secondary' | 'danger' | '' = '',
  fields: Record<string, string> = {},
): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return `<form class="inline" method="post" action="${escapeHtml(action)}">${csrfField(csrf)}${hidden}<button type="submit"${kind ? ` class="${kind}"` : ''}>${escapeHtml(label)}</button></form>`;
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
export function statusBadge(status: string): string {
  return `<span class="status status-${escapeHtml(status)}">${escapeHtml(statusWord(status))}</span>`;
}

/** An amount in minor units with its currency, as `MWK 1,250.00`. */
export function money(minor: number, currency: string): string {
  return `${escapeHtml(currency)} ${formatMoneyText(minor)}`;
}

/** A table whose cells are already HTML; `caption` names it for screen readers. */
export function table(caption: string, headings: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  const head = headings.map((heading) => `<th scope="col">${escapeHtml(heading)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('\n');
  return `<div class="table-wrap" tabindex="0" role="region" aria-label="${escapeHtml(caption)}"><table><caption class="visually-hidden">${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}

function header(viewer: Viewer): string {
  const other: Mode = viewer.mode === 'test' ? 'live' : 'test';
  const links = SECTIONS.filter(
    (section) => may(viewer.role, section.need) && (!section.merchant || viewer.merchantName !== null),
  )
    .map((section) => {
      const current =
        section.href === '/dashboard'
          ? viewer.path === '/dashboard'
          : viewer.path === section.href || viewer.path.startsWith(`${section.href}/`);
      return `<a href="${section.href}"${current ? ' aria-current="page"' : ''}>${escapeHtml(section.label)}</a>`;
    })
    .join('');
  const whose = viewer.merchantName === null ? 'Gateway operator' : viewer.merchantName;
  return `<header class="top">
<a class="brand" href="/dashboard">Lipira</a>
<span class="whose">${escapeHtml(whose)}</span>
<div class="mode mode-${viewer.mode}"><span class="mode-label">${viewer.mode === 'test' ? 'Test mode' : 'Live mode'}</span>${postButton('/dashboard/mode', viewer.csrf, `Switch to ${other}`, 'secondary', { mode: other, back: viewer.path })}</div>
<nav class="account" aria-label="Account"><span class="who">${escapeHtml(viewer.email)} · ${escapeHtml(viewer.role)}</span><a href="/dashboard/settings/two-factor">Two-factor sign-in</a>${postButton('/dashboard/logout', viewer.csrf, 'Sign out', 'secondary')}</nav>
</header>
<nav class="sections" aria-label="Dashboard">${links}</nav>
${viewer.mode === 'test' ? '<aside class="test-banner" aria-label="Test mode"><p>You are viewing test data: nothing here is real money.</p></aside>' : ''}`;
}

/**
 * The whole document. Without a viewer (sign-in, set-password, error pages) it is a narrow card
 * with the brand only; with one, the header, mode switch and navigation come first.
 */
export function shell(title: string, body: string, options: { viewer?: Viewer; wide?: boolean } = {}): string {
  const top = options.viewer
    ? header(options.viewer)
    : '<header class="top"><a class="brand" href="/dashboard">Lipira dashboard</a></header>';
  const width = options.viewer ? (options.wide === false ? '' : ' class="wide"') : '';
  return htmlDocument({
    title: `${title} · Lipira dashboard`,
    stylesheet: '/dashboard/assets/dashboard.css',
    bodyClass: options.viewer ? `mode-${options.viewer.mode}` : undefined,
    body: `${top}
<main${width}>
${body}
</main>`,
  });
}
