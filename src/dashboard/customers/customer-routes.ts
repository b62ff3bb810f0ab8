import type { App } from '../../http/app-type.ts';
import {
  PAGE,
  merchantModeOf,
  renderNotFoundPage,
  type DashboardDeps,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import { customerFilters, parseCursor } from '../payments/payment-list-filters.ts';
import { paymentPage } from '../payments/payment-list-repository.ts';
import { planSearch } from '../payments/payment-search-repository.ts';
import { customerSearch, parsePaymentSearch } from '../payments/payment-search.ts';
import { isCustomerKey } from './customer-key.ts';
import { customerOf, customerPage, type CustomerCursor } from './customer-repository.ts';
import { renderCustomerPage, renderCustomersPage } from './customer-views.ts';

const CURSOR = /^(\d{1,15})_(.{1,320})$/s;

/**
 * Customers: everyone the merchant was paid by in the page's mode, searchable with the payments
 * search, a page at a time; and one customer's page, their figures and every payment of theirs.
 */
export function registerCustomerPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const db = deps.database.db;
  const { timeZone, checkoutMaxFailedAttempts: maxFailedAttempts } = deps.config;

  app.get<{ Querystring: Query }>('/dashboard/customers', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const { search, problem } = parsePaymentSearch(request.query.q ?? '');
    const { cursor, problem: cursorProblem } = customerCursor(request.query);
    const problems = [problem, cursorProblem].filter((said) => said !== null);
    const plan = search && (await planSearch(db, search));
    const found = await customerPage(db, merchantModeOf(page), plan, cursor);
    return guard.html(
      reply,
      200,
      renderCustomersPage({ viewer: page.viewer, search: search?.text ?? '', problems, page: found, timeZone }),
    );
  });

  app.get<{ Params: { key: string }; Querystring: Query }>(
    '/dashboard/customers/:key',
    PAGE,
    async (request, reply) => {
      const page = await guard.merchantPage(request, reply, 'read');
      if (!page) return reply;
      const { key } = request.params;
      const principal = merchantModeOf(page);
      const customer = isCustomerKey(key)
        ? await customerOf(db, principal, key, await planSearch(db, customerSearch(key)))
        : undefined;
      if (!customer) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'customer'));
      // A page link that is not ours shows their newest payments, as the payments list does.
      const { cursor } = parseCursor(request.query);
      const payments = await paymentPage(db, { principal, maxFailedAttempts }, customerFilters(key), cursor);
      return guard.html(reply, 200, renderCustomerPage({ viewer: page.viewer, customer, payments, timeZone }));
    },
  );
}

/** `before=<last paid>_<key>` or `after=…`: the Older and Newer links' keyset cursor. */
function customerCursor(query: Query): { cursor: CustomerCursor | null; problem: string | null } {
  const direction = query.after !== undefined ? 'newer' : query.before !== undefined ? 'older' : null;
  if (direction === null) return { cursor: null, problem: null };
  const match = CURSOR.exec((direction === 'newer' ? query.after : query.before) ?? '');
  if (!match) return { cursor: null, problem: 'The page link is not one of ours; the first customers are shown.' };
  return { cursor: { lastPaidAt: Number(match[1]), key: match[2]!, direction }, problem: null };
}
