import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import { liveNoticeBox } from '../live-notice.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';
import { balanceCurrencies, finishedPaymentsByDay, recentPayments, type DayTally } from './overview-repository.ts';
import { renderOverviewPage, type PeriodFigures } from './overview-views.ts';
import { lastDays } from '../../shared/zone-days.ts';

/** The span of the chart and of the "last 30 days" figures, today included. */
export const OVERVIEW_DAYS = 30;
const RECENT = 10;
/** Shown even before any payment: the gateway's home currency. */
const HOME_CURRENCY = 'MWK';

/**
 * The merchant's home page, in the page's mode only: its balances as `GET /wallet-balance` reads
 * them, today's and the last 30 days' volume and success rate, the last 30 days' volume day by
 * day, and the newest payments. Days are the gateway's TIMEZONE's.
 */
export function registerOverviewPages(app: App, { config, database, clock }: DashboardDeps, guard: PageGuard): void {
  const db = database.db;
  app.get('/dashboard', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const { merchant, mode } = page;
    const days = lastDays(clock.now(), OVERVIEW_DAYS, config.timeZone);
    const scope = { merchantId: merchant.id, mode, maxFailedAttempts: config.checkoutMaxFailedAttempts };
    const [tallies, recent, accounts] = await Promise.all([
      finishedPaymentsByDay(
        db,
        scope,
        days.map((day) => day.start),
      ),
      recentPayments(db, scope, RECENT),
      balanceCurrencies(db, merchant.id, mode),
    ]);
    const month = figuresOf(tallies);
    const today = figuresOf(tallies.filter((tally) => tally.day === OVERVIEW_DAYS - 1));
    // The chart shows one currency: the one with the most volume, else the home one (amounts in different currencies do not add up).
    const chartCurrency =
      [...month.volumes].sort((a, b) => b.volumeMinor - a.volumeMinor)[0]?.currency ?? HOME_CURRENCY;
    const currencies = [...new Set([HOME_CURRENCY, ...accounts])];
    const balances = await Promise.all(
      currencies.map(async (currency) => ({ currency, ...(await merchantBalances(db, merchant.id, mode, currency)) })),
    );
    const chartDays = days.map((day, index) => ({
      date: day.date,
      volumeMinor: tallies
        .filter((tally) => tally.day === index && tally.currency === chartCurrency)
        .reduce((sum, tally) => sum + tally.volumeMinor, 0),
    }));
    return guard.html(
      reply,
      200,
      renderOverviewPage({
        viewer: page.viewer,
        merchantName: merchant.name,
        acting: page.may('operate'),
        balances,
        today,
        month,
        chart: { currency: chartCurrency, days: chartDays },
        recent,
        timeZone: config.timeZone,
        liveNotice: liveNoticeBox(mode, config.liveRoutes),
      }),
    );
  });
}

/** Days' tallies added up: volume per currency, and how many payments ended each way over every currency. */
function figuresOf(tallies: DayTally[]): PeriodFigures {
  const volumes = new Map<string, number>();
  const figures = { succeeded: 0, failed: 0, cancelled: 0, expired: 0 };
  for (const tally of tallies) {
    for (const outcome of ['succeeded', 'failed', 'cancelled', 'expired'] as const) figures[outcome] += tally[outcome];
    if (tally.volumeMinor > 0) volumes.set(tally.currency, (volumes.get(tally.currency) ?? 0) + tally.volumeMinor);
  }
  return {
    volumes: [...volumes]
      .map(([currency, volumeMinor]) => ({ currency, volumeMinor }))
      .sort((a, b) => a.currency.localeCompare(b.currency)),
    ...figures,
  };
}
