/** The customers page and one customer's page. */
import { moneyText } from '../../shared/money.ts';
import { localMaskedMobile } from '../../shared/phone.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { html, joinHtml, type SafeHtml } from '../../web/html.ts';
import { shell, table, type Viewer } from '../layout.ts';
import type { PaymentPage } from '../payments/payment-list-repository.ts';
import { paymentsTable } from '../payments/payment-list-views.ts';
import { SHORTEST_WORD } from '../payments/payment-search.ts';
import type { Customer, CustomerPage } from './customer-repository.ts';

export interface CustomersView {
  viewer: Viewer;
  /** The search as typed. */
  search: string;
  problems: string[];
  page: CustomerPage;
  timeZone: string;
}

/** `before=`/`after=` of a customer: their last payment's time and their key. */
export function customerCursorParam(customer: Customer): string {
  return `${customer.lastPaidAt}_${customer.key}`;
}

export const customerPath = (key: string) => `/dashboard/customers/${encodeURIComponent(key)}`;

const totalsText = (customer: Customer) =>
  customer.totals.map(({ currency, minor }) => moneyText(currency, minor)).join(' + ');

/** A masked number is shown as Malawians write numbers; an email as it is. */
const customerName = (key: string) => (key.includes('@') ? key : localMaskedMobile(key));

export function renderCustomersPage({ viewer, search, problems, page, timeZone }: CustomersView): SafeHtml {
  const link = (cursor: Record<string, string>) =>
    `/dashboard/customers?${new URLSearchParams({ ...(search ? { q: search } : {}), ...cursor })}`;
  const rows = page.customers.map((customer) => [
    html`<a href="${customerPath(customer.key)}">${customerName(customer.key)}</a>`,
    html`<span class="num">${customer.payments}</span>`,
    html`<span class="num">${totalsText(customer)}</span>`,
    formatHumanDate(customer.lastPaidAt, timeZone),
  ]);
  const first = page.customers[0];
  const last = page.customers.at(-1);
  const pager = [
    page.hasNewer && first && html`<a href="${link({ after: customerCursorParam(first) })}" rel="prev">Newer</a>`,
    page.hasOlder && last && html`<a href="${link({ before: customerCursorParam(last) })}" rel="next">Older</a>`,
  ].filter((item) => item !== undefined && item !== false);
  const empty = search
    ? 'No customer has a payment this search finds.'
    : `No customer has paid in ${viewer.mode} mode yet.`;
  return shell(
    'Customers',
    html`<h1>Customers</h1>
<p class="muted">Everyone who has paid you in <strong>${viewer.mode}</strong> mode, most recent first: known by their email or, for payments without one, the mobile number they paid from (masked, as the gateway keeps numbers). Counts and totals are of successful payments; dates are in ${timeZone}.</p>
${problems.length > 0 && html`<div class="warning" role="status"><p>Some of what was asked was ignored:</p><ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>`}
<form class="filters payment-filters" method="get" action="/dashboard/customers" role="search" aria-label="Find customers">
<label>Search<input type="search" name="q" value="${search}" aria-describedby="customers-search-hint"></label>
<button type="submit">Search</button>
<a href="/dashboard/customers">Clear</a>
<p id="customers-search-hint" class="hint">Finds the customers of the payments the payments search finds: any part of a name, email, tx_ref, charge ID, reference or operator reference, or a whole mobile number in any form; words under ${SHORTEST_WORD} characters are left out.</p>
</form>
${table('Customers', ['Customer', 'Payments', 'Total paid', 'Last paid'], rows, empty)}
${pager.length > 0 && html`<nav class="pager" aria-label="Pages of customers">${joinHtml(pager, ' ')}</nav>`}`,
    { viewer },
  );
}

export interface CustomerView {
  viewer: Viewer;
  customer: Customer;
  payments: PaymentPage;
  timeZone: string;
}

export function renderCustomerPage({ viewer, customer, payments, timeZone }: CustomerView): SafeHtml {
  const link = (cursor: Record<string, string>) => `${customerPath(customer.key)}?${new URLSearchParams(cursor)}`;
  const name = customerName(customer.key);
  return shell(
    name,
    html`<p><a href="/dashboard/customers">Customers</a></p>
<h1 class="customer-name">${name}</h1>
<dl class="facts">
<dt>Successful payments</dt><dd>${customer.payments}</dd>
<dt>Total paid</dt><dd>${totalsText(customer)}</dd>
<dt>Last paid</dt><dd>${formatHumanDate(customer.lastPaidAt, timeZone)}</dd>
</dl>
<h2>Payments</h2>
<p class="muted">Every payment of theirs in <strong>${viewer.mode}</strong> mode, whatever its status, newest first.</p>
${paymentsTable(payments, timeZone, link, 'No payments.')}`,
    { viewer },
  );
}
