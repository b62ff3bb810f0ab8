import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { postButton, shell, statusBadge, table, type Viewer } from '../layout.ts';
import { moneyText } from '../../shared/money.ts';
import type { RecentPayment } from './overview-repository.ts';
import { volumeChart, type DayVolume } from './volume-chart.ts';

/** What one period (today, the last 30 days) adds up to, per currency. */
export interface PeriodFigures {
  volumes: Array<{ currency: string; volumeMinor: number }>;
  succeeded: number;
  failed: number;
  /** Sessions the customer cancelled or let expire: apart from the success rate, since no payment of theirs failed. */
  cancelled: number;
  expired: number;
}

export interface OverviewView {
  viewer: Viewer;
  merchantName: string;
  /** An operator acting for the merchant may stop acting from here. */
  acting: boolean;
  balances: Array<{ currency: string; collectionMinor: number; mainMinor: number }>;
  today: PeriodFigures;
  month: PeriodFigures;
  chart: { currency: string; days: DayVolume[] };
  recent: RecentPayment[];
  timeZone: string;
  /** Said in live mode while no live payment method is set up (`liveNoticeBox`); empty otherwise. */
  liveNotice: SafeHtml;
}

export function renderOverviewPage(view: OverviewView): SafeHtml {
  const { viewer } = view;
  const modeWord = viewer.mode === 'test' ? 'test' : 'live';
  const balanceCards = view.balances.map(
    (balance) =>
      html`${card(`Collection balance (${balance.currency})`, moneyText(balance.currency, balance.collectionMinor), 'Collected, not yet settled')}${card(`Main balance (${balance.currency})`, moneyText(balance.currency, balance.mainMinor), 'Available for payouts and refunds')}`,
  );
  const recentRows = view.recent.map((payment) => [
    html`<a href="/dashboard/payments/${encodeURIComponent(payment.id)}">${payment.reference}</a>`,
    payment.kind === 'checkout' ? 'Checkout' : 'Direct charge',
    statusBadge(payment.status),
    moneyText(payment.currency, payment.amountMinor),
    payment.customer ?? '—',
    formatHumanDate(payment.createdAt, view.timeZone),
  ]);
  return shell(
    'Overview',
    html`<h1>Overview</h1>
<p>Signed in as <strong>${viewer.email}</strong> (${viewer.role}) for <strong>${view.merchantName}</strong>. Every figure below is ${modeWord} data.</p>
${view.liveNotice}
${view.acting ? html`<div class="acting"><p>You are acting for this merchant as the gateway's operator.</p>${postButton('/dashboard/operator/act', viewer.csrf, 'Stop acting', 'secondary', { merchant_id: '' })}</div>` : ''}
<h2>Balances</h2>
<div class="cards">${balanceCards}</div>
<h2>Payments</h2>
<div class="cards">${periodCards('Today', view.today)}${periodCards('Last 30 days', view.month)}</div>
<h2>Last 30 days, day by day</h2>
${volumeChart(view.chart.days, view.chart.currency, whyNoVolume(view.month, modeWord, view.chart.days.length))}
<h2>Recent payments</h2>
${table(`The ${view.recent.length} most recent ${modeWord} payments`, ['Reference', 'Kind', 'Status', 'Amount', 'Customer', 'Created'], recentRows, `No ${modeWord} payments yet.`)}
<p><a href="/dashboard/payments">All payments</a></p>
<h2>Your session</h2>
<div class="actions">${postButton('/dashboard/logout', viewer.csrf, 'Sign out')}${postButton('/dashboard/logout-everywhere', viewer.csrf, 'Sign out everywhere', 'secondary')}</div>`,
    { viewer },
  );
}

/** Why the chart has no bar, as the figures beside it count the payments that ended. */
function whyNoVolume(month: PeriodFigures, modeWord: string, days: number): string {
  const unpaid = (
    [
      [month.failed, 'failed'],
      [month.cancelled, 'cancelled'],
      [month.expired, 'expired'],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, ending]) => `${count} ${ending}`);
  return unpaid.length === 0
    ? `No ${modeWord} payment succeeded or failed in the last ${days} days.`
    : `No ${modeWord} payment succeeded in the last ${days} days: ${unpaid.join(', ')}.`;
}

function card(label: string, figure: HtmlValue, note: string): SafeHtml {
  return html`<div class="card"><p class="muted">${label}</p><p class="figure">${figure}</p><p class="hint">${note}</p></div>`;
}

function periodCards(label: string, figures: PeriodFigures): SafeHtml {
  const volumes =
    figures.volumes.length === 0
      ? moneyText('MWK', 0)
      : joinHtml(
          figures.volumes.map((volume) => moneyText(volume.currency, volume.volumeMinor)),
          html`<br>`,
        );
  const finished = figures.succeeded + figures.failed;
  const rate = finished === 0 ? html`—` : formatRate(figures.succeeded / finished);
  const counted =
    finished === 0
      ? 'No payment succeeded or failed.'
      : `${figures.succeeded} of ${finished} succeeded, ${figures.failed} failed.`;
  const apart =
    figures.cancelled + figures.expired === 0
      ? ''
      : ` Not counted: ${figures.cancelled} cancelled, ${figures.expired} expired.`;
  return html`${card(`${label}: volume`, volumes, 'Successful payments')}${card(`${label}: success rate`, rate, counted + apart)}`;
}

/** A share as a percentage with at most one decimal: 66.7 %, 100 %. */
function formatRate(share: number): string {
  return `${Number((share * 100).toFixed(1))} %`;
}
