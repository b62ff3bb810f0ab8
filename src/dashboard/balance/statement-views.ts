import type { Balances } from '../../ledger/ledger-service.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { formatTimestamp, formatHumanDate } from '../../shared/time.ts';
import { moneyText } from '../../shared/money.ts';
import { csvAmount, csvLine } from '../csv.ts';
import { shell, table } from '../layout.ts';
import type { MerchantPage } from '../page-context.ts';
import type { StatementEntry } from './statement-repository.ts';
import type { ChargeRef } from '../../shared/ids.ts';

const KIND_WORDS: Record<StatementEntry['kind'], string> = {
  collection: 'Payment',
  settlement: 'Settlement',
  payout_reserve: 'Payout',
  payout_release: 'Payout returned',
  payout_complete: 'Payout',
  refund_reserve: 'Refund',
  refund_release: 'Refund returned',
  refund_hold: 'Refund held',
  refund_complete: 'Refund',
};

/** What an entry belongs to, in words, and the dashboard page of that payment or payout. */
export function describeEntry(entry: StatementEntry): { text: string; href: string | null } {
  const payment = (sessionId: string | null, chargeRef: ChargeRef | null) =>
    chargeRef === null ? null : `/dashboard/payments/${sessionId ?? chargeRef}`;
  switch (entry.kind) {
    case 'collection':
      return {
        text: `Payment ${entry.charge_id ?? ''} received, net of its fee`,
        href: payment(entry.session_id, entry.charge_ref),
      };
    case 'settlement':
      return {
        text:
          entry.account === 'collection'
            ? 'Settled from the collection balance to main'
            : 'Settled into main from the collection balance',
        href: null,
      };
    case 'payout_reserve':
      return {
        text: `Payout ${entry.charge_id ?? ''}: amount and fee`,
        href: entry.charge_ref && `/dashboard/payouts/${entry.charge_ref}`,
      };
    case 'payout_release':
      return {
        text: `Payout ${entry.charge_id ?? ''} failed: amount and fee returned`,
        href: entry.charge_ref && `/dashboard/payouts/${entry.charge_ref}`,
      };
    case 'refund_reserve':
      return {
        text: `Refund ${entry.refund_id ?? ''} of a payment`,
        href: payment(entry.refunded_session_id, entry.refunded_ref),
      };
    case 'refund_release':
      return {
        text: `Refund ${entry.refund_id ?? ''} failed: returned`,
        href: payment(entry.refunded_session_id, entry.refunded_ref),
      };
    default:
      return { text: KIND_WORDS[entry.kind], href: null };
  }
}

const accountWord = (account: StatementEntry['account']) => (account === 'main' ? 'Main' : 'Collection');

export interface BalanceView {
  balances: Array<{ currency: string } & Balances>;
  entries: StatementEntry[];
  /** The query string of the next page, or null on the last. */
  next: string | null;
  from: string;
  to: string;
  filterError: string | null;
  /** The monthly statement's month (`YYYY-MM`), and why the one asked for could not be used. */
  month: string;
  monthError: string | null;
  timeZone: string;
  settlement: SettlementView;
}

/** When the page's mode settles next (`nextSettlement`), on what interval, and the time now. */
export interface SettlementView {
  next: 'immediate' | number | null;
  intervalMs: 'immediate' | number;
  now: number;
}

/** When collected money next moves to main, in the gateway's time zone, as the balance page says it. */
export function settlementText({ next, intervalMs, now }: SettlementView, timeZone: string): string {
  if (next === 'immediate' || intervalMs === 'immediate')
    return 'Test payments settle at once: they are credited to the main balance as they succeed.';
  const every = `Collected money moves to main every ${intervalText(intervalMs)}.`;
  if (next === null) return `${every} The first settlement is one interval after the gateway's workers first start.`;
  if (next <= now) return `${every} The next settlement is due now (it was due ${formatHumanDate(next, timeZone)}).`;
  return `${every} Next settlement: ${formatHumanDate(next, timeZone)}.`;
}

/** An interval as people say it, in its largest whole unit (a single day as `24 hours`, as the settings write it). */
function intervalText(ms: number): string {
  const units: Array<[string, number]> = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ];
  for (const [unit, size] of units)
    if (ms % size === 0 && !(unit === 'day' && ms === size)) return plural(ms / size, unit);
  return plural(ms, 'millisecond');
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

export function renderBalancePage(page: MerchantPage, view: BalanceView): SafeHtml {
  const cards = view.balances.flatMap(({ currency, mainMinor, collectionMinor }) => [
    html`<div class="card"><h2>Main balance</h2><p class="figure">${moneyText(currency, mainMinor)}</p><p class="muted">What payouts are paid from.</p></div>`,
    html`<div class="card"><h2>Collection balance</h2><p class="figure">${moneyText(currency, collectionMinor)}</p><p class="muted">Payments received, moved to main at settlement.</p></div>`,
  ]);
  const rows = view.entries.map((entry) => {
    const { text, href } = describeEntry(entry);
    const amount = moneyText(entry.currency, Math.abs(entry.amount_minor));
    return [
      formatHumanDate(entry.created_at, view.timeZone),
      KIND_WORDS[entry.kind],
      href ? html`<a href="${href}">${text}</a>` : text,
      accountWord(entry.account),
      entry.amount_minor > 0 && html`<span class="num">${amount}</span>`,
      entry.amount_minor < 0 && html`<span class="num">${amount}</span>`,
    ];
  });
  const range = new URLSearchParams({
    ...(view.from ? { from: view.from } : {}),
    ...(view.to ? { to: view.to } : {}),
  }).toString();
  return shell(
    'Balance',
    html`<h1>Balance</h1>
<div class="cards">${cards}</div>
<p class="settlement">${settlementText(view.settlement, view.timeZone)}</p>
<h2>Monthly statement</h2>
<form class="filters" method="get" action="/dashboard/balance/statement.csv">
<label for="month">Month</label><input type="month" id="month" name="month" value="${view.month}" required${view.monthError && html` aria-invalid="true" aria-describedby="month-error"`}>
<button type="submit" class="secondary">Download the month (CSV)</button>
</form>
${view.monthError && html`<p class="warning" id="month-error">${view.monthError}</p>`}
<p class="muted">Each balance's opening and closing balance and every movement of the month between them, with the balance after each; times in ${view.timeZone}.</p>
<h2>Statement</h2>
<form class="filters" method="get" action="/dashboard/balance">
<label for="from">From</label><input type="date" id="from" name="from" value="${view.from}">
<label for="to">To (inclusive)</label><input type="date" id="to" name="to" value="${view.to}">
<button type="submit" class="secondary">Show</button>
</form>
${view.filterError && html`<p class="warning">${view.filterError}</p>`}
<p><a href="/dashboard/balance.csv${range && `?${range}`}" download>Download the statement (CSV)</a></p>
${table('Ledger statement, newest first', ['Time', 'Kind', 'Description', 'Balance', 'In', 'Out'], rows, `No money has moved in ${page.mode} mode${range ? ' in these dates' : ''} yet.`)}
${view.next && html`<p><a href="/dashboard/balance?${view.next}">Older entries</a></p>`}`,
    { viewer: page.viewer },
  );
}

export const CSV_HEADER = [
  'entry_id',
  'time_utc',
  'kind',
  'description',
  'link',
  'balance',
  'currency',
  'amount_in',
  'amount_out',
];

export function statementCsvLine(entry: StatementEntry): string {
  const { text, href } = describeEntry(entry);
  return csvLine([
    String(entry.id),
    formatTimestamp(entry.created_at),
    entry.kind,
    text,
    href ?? '',
    entry.account,
    entry.currency,
    entry.amount_minor > 0 ? csvAmount(entry.amount_minor) : '',
    entry.amount_minor < 0 ? csvAmount(-entry.amount_minor) : '',
  ]);
}
