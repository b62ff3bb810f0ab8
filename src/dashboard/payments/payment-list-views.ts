/** The payments list page and its CSV export. */
import { html, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate, formatTimestamp } from '../../shared/time.ts';
import { shell, statusBadge, statusWord, table, type Viewer } from '../layout.ts';
import { moneyText } from '../../shared/money.ts';
import {
  cursorParam,
  FILTER_FIELDS,
  PAYMENT_CHANNELS,
  PAYMENT_STATUSES,
  type PaymentChannel,
} from './payment-list-filters.ts';
import type { PaymentListRow, PaymentPage } from './payment-list-repository.ts';
import type { Query } from '../page-context.ts';

const CHANNEL_NAMES: Record<PaymentChannel, string> = {
  mobile_money: 'Mobile money',
  card: 'Card',
  bank_transfer: 'Bank transfer',
};
const STATUS_NAMES = Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, statusWord(status)]));

export interface PaymentsView {
  viewer: Viewer;
  query: Query;
  problems: string[];
  page: PaymentPage;
  timeZone: string;
}

/** The filters as they were asked for, for the links that keep them (pages, CSV). */
export function filterQuery(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const field of FILTER_FIELDS) {
    const value = query[field]?.trim();
    if (value) params.set(field, value);
  }
  return params;
}

export function renderPaymentsPage({ viewer, query, problems, page, timeZone }: PaymentsView): SafeHtml {
  const kept = filterQuery(query);
  const link = (extra: Record<string, string>) => {
    const params = new URLSearchParams(kept);
    for (const [name, value] of Object.entries(extra)) params.set(name, value);
    return `/dashboard/payments?${params.toString()}`;
  };
  const csv = `/dashboard/payments.csv${kept.size > 0 ? `?${kept.toString()}` : ''}`;
  const rows = page.rows.map((row) => [
    formatHumanDate(row.created_at, timeZone),
    html`<a href="/dashboard/payments/${encodeURIComponent(row.id)}">${row.merchant_ref}</a><br><span class="muted">${row.reference}</span>`,
    row.email ?? row.mobile ?? '—',
    channelName(row),
    moneyText(row.currency, row.amount_minor),
    statusBadge(row.status),
  ]);
  const first = page.rows[0];
  const last = page.rows.at(-1);
  const pager = [
    page.hasNewer && first && html`<a href="${link({ after: cursorParam(first) })}" rel="prev">Newer</a>`,
    page.hasOlder && last && html`<a href="${link({ before: cursorParam(last) })}" rel="next">Older</a>`,
  ].filter((item) => item !== undefined && item !== false);
  const filtered = kept.size > 0;
  const body = html`<h1>Payments</h1>
<p class="muted">Checkout sessions and direct charges (mobile money, card, bank transfer) in <strong>${viewer.mode}</strong> mode, newest first. The mode is the switch at the top of the page; dates are in ${timeZone}.</p>
${problems.length > 0 ? html`<div class="warning" role="status"><p>Some filters were ignored:</p><ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>` : ''}
${filtersForm(query)}
<p class="payments-export"><a href="${csv}">Export CSV</a> <span class="muted">of every payment these filters show, not only this page.</span></p>
${table('Payments', ['Date', 'Reference', 'Customer', 'Channel', 'Amount', 'Status'], rows, filtered ? 'No payment matches these filters.' : `No ${viewer.mode} payments yet.`)}
${pager.length > 0 && html`<nav class="pager" aria-label="Pages of payments">${pager}</nav>`}`;
  return shell('Payments', body, { viewer });
}

function filtersForm(query: Query): SafeHtml {
  const value = (name: string) => query[name]?.trim() ?? '';
  const select = (name: string, label: string, options: readonly string[], names: Record<string, string>) => {
    const chosen = query[name]?.trim() ?? '';
    const items = options.map(
      (option) => html`<option value="${option}"${option === chosen && ' selected'}>${names[option]!}</option>`,
    );
    return html`<label>${label}<select name="${name}"><option value="">Any</option>${items}</select></label>`;
  };
  return html`<form class="filters payment-filters" method="get" action="/dashboard/payments" role="search" aria-label="Filter payments">
<label>Search<input type="search" name="q" value="${value('q')}" aria-describedby="payments-search-hint"></label>
${select('status', 'Status', PAYMENT_STATUSES, STATUS_NAMES)}
${select('channel', 'Channel', PAYMENT_CHANNELS, CHANNEL_NAMES)}
<label>From<input type="date" name="from" value="${value('from')}"></label>
<label>To<input type="date" name="to" value="${value('to')}"></label>
<label>Least amount<input type="text" inputmode="decimal" name="min" value="${value('min')}"></label>
<label>Greatest amount<input type="text" inputmode="decimal" name="max" value="${value('max')}"></label>
<button type="submit">Filter</button>
<a href="/dashboard/payments">Clear</a>
<p id="payments-search-hint" class="hint">Search finds an exact tx_ref, charge ID, reference, customer email or mobile number. Amounts are in major units (MWK 1,500.50 as 1500.50).</p>
</form>`;
}

function channelName(row: PaymentListRow): string {
  const channel = row.channel ? CHANNEL_NAMES[row.channel] : null;
  if (row.kind === 'charge') return channel ?? '—';
  return channel ? `Checkout · ${channel}` : 'Checkout';
}

export const CSV_HEADER = [
  'id',
  'type',
  'created_at',
  'merchant_reference',
  'reference',
  'email',
  'mobile',
  'channel',
  'amount',
  'currency',
  'status',
];

/** CSV lines (CRLF-terminated, RFC 4180) of the rows; times in UTC, as the API gives them. */
export function csvLines(rows: PaymentListRow[]): string {
  return rows
    .map((row) =>
      csvLine([
        row.id,
        row.kind === 'session' ? 'checkout_session' : 'direct_charge',
        formatTimestamp(row.created_at),
        row.merchant_ref,
        row.reference,
        row.email ?? '',
        row.mobile ?? '',
        row.channel ?? '',
        (row.amount_minor / 100).toFixed(2),
        row.currency,
        row.status,
      ]),
    )
    .join('');
}

export function csvLine(cells: string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * One cell, quoted when it must be. A cell a spreadsheet would read as a formula (starting with
 * = + - @, or a tab or carriage return before one) gets a leading apostrophe: a customer's
 * email or a merchant's reference must not run as a formula on the merchant's computer.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
