/** The payments list page, and the table of payments a customer's page shows too. */
import { html, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate } from '../../shared/time.ts';
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
import { SHORTEST_WORD } from './payment-search.ts';

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
  const filtered = kept.size > 0;
  const body = html`<h1>Payments</h1>
<p class="muted">Checkout sessions and direct charges (mobile money, card, bank transfer) in <strong>${viewer.mode}</strong> mode, newest first. The mode is the switch at the top of the page; dates are in ${timeZone}.</p>
${problems.length > 0 ? html`<div class="warning" role="status"><p>Some filters were ignored:</p><ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>` : ''}
${filtersForm(query)}
<p class="payments-export"><a href="${csv}">Export CSV</a> <span class="muted">of every payment these filters show, not only this page (times in ${timeZone}).</span></p>
${paymentsTable(page, timeZone, link, filtered ? 'No payment matches these filters.' : `No ${viewer.mode} payments yet.`)}`;
  return shell('Payments', body, { viewer });
}

/**
 * A page of payments as a table, each linking to its payment's page, with Newer and Older links
 * made by `link` from the keyset cursor they add.
 */
export function paymentsTable(
  page: PaymentPage,
  timeZone: string,
  link: (cursor: Record<string, string>) => string,
  empty: string,
): SafeHtml {
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
  return html`${table('Payments', ['Date', 'Reference', 'Customer', 'Channel', 'Amount', 'Status'], rows, empty)}
${pager.length > 0 && html`<nav class="pager" aria-label="Pages of payments">${pager}</nav>`}`;
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
<p id="payments-search-hint" class="hint">Search finds any part of a tx_ref, charge ID, reference, operator reference, customer name or email, in any case, and a whole mobile number in any form (0991234567, +265 99 123 4567); every word given must be found, words under ${SHORTEST_WORD} characters are left out. Amounts are in major units (MWK 1,500.50 as 1500.50).</p>
</form>`;
}

function channelName(row: PaymentListRow): string {
  const channel = row.channel ? CHANNEL_NAMES[row.channel] : null;
  if (row.kind === 'charge') return channel ?? '—';
  return channel ? `Checkout · ${channel}` : 'Checkout';
}
