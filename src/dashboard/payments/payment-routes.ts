import type { App } from '../../http/app-type.ts';
import { settlementsOf } from '../balance/settlement-repository.ts';
import { csvLine, sendCsv } from '../csv.ts';
import { PAGE, merchantModeOf, type DashboardDeps, type PageGuard, type Query } from '../page-context.ts';
import { PAYMENT_CSV_HEADER, paidChargeRefs, paymentCsvLines } from './payment-export.ts';
import { parseCursor, parsePaymentFilters } from './payment-list-filters.ts';
import { allPaymentRows, paymentPage } from './payment-list-repository.ts';
import { renderPaymentsPage } from './payment-list-views.ts';

/**
 * The payments list (sessions and direct charges of the page's mode, filtered, a page at a time)
 * and its CSV export: the same filters, every row they select, read and sent in batches.
 */
export function registerPaymentPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const db = deps.database.db;
  const { timeZone, checkoutMaxFailedAttempts: maxFailedAttempts } = deps.config;

  app.get<{ Querystring: Query }>('/dashboard/payments', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const { filters, problems } = parsePaymentFilters(request.query, timeZone);
    const { cursor, problem } = parseCursor(request.query);
    if (problem) problems.push(problem);
    const found = await paymentPage(db, { principal: merchantModeOf(page), maxFailedAttempts }, filters, cursor);
    return guard.html(
      reply,
      200,
      renderPaymentsPage({ viewer: page.viewer, query: request.query, problems, page: found, timeZone }),
    );
  });

  app.get<{ Querystring: Query }>('/dashboard/payments.csv', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    // Filters that cannot be read are left out, as the list page leaves them out (and says so).
    const { filters } = parsePaymentFilters(request.query, timeZone);
    const principal = merchantModeOf(page);
    const batches = allPaymentRows(db, { principal, maxFailedAttempts }, filters);
    async function* lines() {
      yield csvLine(PAYMENT_CSV_HEADER);
      for await (const rows of batches)
        yield paymentCsvLines(rows, await settlementsOf(db, principal, paidChargeRefs(rows)), timeZone);
    }
    return sendCsv(reply, `payments-${page.mode}.csv`, lines());
  });
}
