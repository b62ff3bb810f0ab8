import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import { nextSettlement } from '../../ledger/settlement-worker.ts';
import {
  PAGE,
  merchantModeOf,
  type DashboardDeps,
  type MerchantPage,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import { csvLine, sendCsv } from '../csv.ts';
import { monthOf, monthRange, startOfDay, startOfNextDay } from '../../shared/zone-days.ts';
import { monthlyStatementLines } from './monthly-statement.ts';
import { balanceCurrencies, statementEntries, type StatementRange } from './statement-repository.ts';
import { CSV_HEADER, renderBalancePage, statementCsvLine } from './statement-views.ts';

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
 * first, a page at a time (keyset on the entry's number), the same statement as a CSV file, and a
 * month's statement with its opening and closing balances.
 */
export function registerBalancePages(app: App, { config, database, clock }: DashboardDeps, guard: PageGuard): void {
  const db = database.db;
  const schedule = { live: config.settlementIntervalMs, test: config.testSettlement };

  app.get<{ Querystring: Query }>('/dashboard/balance', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const owner = merchantModeOf(page);
    const filter = dateFilter(request.query, config.timeZone);
    const before = /^\d{1,15}$/.test(request.query.before ?? '') ? Number(request.query.before) : null;
    const [balances, rows, settlesAt] = await Promise.all([
      balancesOf(page),
      statementEntries(db, owner, { ...filter.range, beforeId: before }, ENTRIES_PER_PAGE + 1),
      nextSettlement(db, page.mode, schedule),
    ]);
    const entries = rows.slice(0, ENTRIES_PER_PAGE);
    const monthAsked = request.query.month?.trim() ?? '';
    const monthError =
      monthAsked !== '' && monthRange(monthAsked, config.timeZone) === null
        ? `"${monthAsked}" is not a month like 2026-11: choose the statement's month again.`
        : null;
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
        month: monthError === null && monthAsked !== '' ? monthAsked : monthOf(clock.now(), config.timeZone),
        monthError,
        timeZone: config.timeZone,
        settlement: { next: settlesAt, intervalMs: schedule[page.mode], now: clock.now() },
      }),
    );
  });

  app.get<{ Querystring: Query }>('/dashboard/balance.csv', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const filter = dateFilter(request.query, config.timeZone);
    const owner = merchantModeOf(page);
    async function* lines() {
      yield csvLine(CSV_HEADER);
      for (let before: number | null = null; ;) {
        const batch = await statementEntries(db, owner, { ...filter.range, beforeId: before }, CSV_BATCH);
        yield batch.map(statementCsvLine).join('');
        if (batch.length < CSV_BATCH) break;
        before = batch.at(-1)!.id;
      }
    }
    const name = `statement-${page.mode}${filter.from ? `-from-${filter.from}` : ''}${filter.to ? `-to-${filter.to}` : ''}.csv`;
    return sendCsv(reply, name, lines());
  });

  app.get<{ Querystring: Query }>('/dashboard/balance/statement.csv', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const name = request.query.month?.trim() ?? '';
    const range = monthRange(name, config.timeZone);
    // A month that is not one goes back to the page, which says so beside the month's field.
    if (range === null) return reply.redirect(`/dashboard/balance?${new URLSearchParams({ month: name })}`, 303);
    const lines = monthlyStatementLines(db, merchantModeOf(page), { name, ...range }, config.timeZone);
    return sendCsv(reply, `statement-${page.mode}-${name}.csv`, lines);
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
