import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import {
  PAGE,
  merchantModeOf,
  type DashboardDeps,
  type MerchantPage,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import { startOfDay, startOfNextDay } from '../../shared/zone-days.ts';
import { balanceCurrencies, statementEntries, type StatementRange } from './statement-repository.ts';
import { CSV_HEADER, csvCell, csvLine, renderBalancePage } from './statement-views.ts';

const ENTRIES_PER_PAGE = 50;
/** The CSV reads the statement in pages this big, so a long history is never one huge query result. */
const CSV_BATCH = 1000;

interface DateFilter {
  from: string;
  to: string;
  range: Omit<StatementRange, 'beforeId'>;
  /** Set when a date could not be read: the filter is then ignored and the page says so. */
  error: string | null;
}

/** The optional date range, as days in the gateway's TIMEZONE; a date that is not one is ignored. */
function dateFilter(query: Query, timeZone: string): DateFilter {
  const from = query.from?.trim() ?? '';
  const to = query.to?.trim() ?? '';
  const start = from ? startOfDay(from, timeZone) : null;
  const end = to ? startOfNextDay(to, timeZone) : null;
  if ((from && start === null) || (to && end === null))
    return {
      from: '',
      to: '',
      range: { from: null, to: null },
      error: 'Dates are written as YYYY-MM-DD: the date filter was ignored.',
    };
  if (start !== null && end !== null && start >= end)
    return {
      from: '',
      to: '',
      range: { from: null, to: null },
      error: `The from date ${from} is after the to date ${to}, so no entry could match: the date filter was ignored.`,
    };
  return { from, to, range: { from: start, to: end }, error: null };
}

/**
 * Balance: the merchant's balances in the page's mode and the ledger statement behind them, newest
 * first, a page at a time (keyset on the entry's number), and the same statement as a CSV file.
 */
export function registerBalancePages(app: App, { config, database }: DashboardDeps, guard: PageGuard): void {
  const db = database.db;

  app.get<{ Querystring: Query }>('/dashboard/balance', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const owner = merchantModeOf(page);
    const filter = dateFilter(request.query, config.timeZone);
    const before = /^\d{1,15}$/.test(request.query.before ?? '') ? Number(request.query.before) : null;
    const [balances, rows] = await Promise.all([
      balancesOf(page),
      statementEntries(db, owner, { ...filter.range, beforeId: before }, ENTRIES_PER_PAGE + 1),
    ]);
    const entries = rows.slice(0, ENTRIES_PER_PAGE);
    const next =
      rows.length > ENTRIES_PER_PAGE
        ? new URLSearchParams({
            ...(filter.from ? { from: filter.from } : {}),
            ...(filter.to ? { to: filter.to } : {}),
            before: String(entries.at(-1)!.id),
          }).toString()
        : null;
    return guard.html(
      reply,
      200,
      renderBalancePage(page, {
        balances,
        entries,
        next,
        from: filter.from,
        to: filter.to,
        filterError: filter.error,
        timeZone: config.timeZone,
      }),
    );
  });

  app.get<{ Querystring: Query }>('/dashboard/balance.csv', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const filter = dateFilter(request.query, config.timeZone);
    const lines = [CSV_HEADER.map(csvCell).join(',')];
    for (let before: number | null = null; ;) {
      const batch = await statementEntries(db, merchantModeOf(page), { ...filter.range, beforeId: before }, CSV_BATCH);
      lines.push(...batch.map(csvLine));
      if (batch.length < CSV_BATCH) break;
      before = batch.at(-1)!.id;
    }
    const name = `statement-${page.mode}${filter.from ? `-from-${filter.from}` : ''}${filter.to ? `-to-${filter.to}` : ''}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-store')
      .send(`${lines.join('\r\n')}\r\n`);
  });

  async function balancesOf(page: MerchantPage) {
    const currencies = await balanceCurrencies(db, merchantModeOf(page));
    return Promise.all(
      currencies.map(async (currency) => ({
        currency,
        ...(await merchantBalances(db, page.merchant.id, page.mode, currency)),
      })),
    );
  }
}
