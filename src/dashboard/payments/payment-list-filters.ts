/**
 * The payments list's filters, read from its query string. A value that cannot be read is left
 * out (the list shows everything it would otherwise), as are both ends of a range given the wrong
 * way round, and named in `problems`, which the page shows: a bad filter never fails the page.
 */
import type { Query } from '../page-context.ts';
import { customerSearch, parsePaymentSearch, type PaymentSearch } from './payment-search.ts';
import { startOfDay, startOfNextDay } from '../../shared/zone-days.ts';

/** A session's by how it ended (`sessionOutcome`): a direct charge is never cancelled nor expired. */
export const PAYMENT_STATUSES = ['pending', 'success', 'failed', 'cancelled', 'expired'] as const;
export const PAYMENT_CHANNELS = ['mobile_money', 'card', 'bank_transfer'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number];

export interface PaymentFilters {
  status: PaymentStatus | null;
  channel: PaymentChannel | null;
  /** Epoch ms, inclusive: the start of the `from` day in the gateway's time zone. */
  createdFrom: number | null;
  /** Epoch ms, exclusive: the start of the day after the `to` day. */
  createdBefore: number | null;
  minMinor: number | null;
  maxMinor: number | null;
  search: PaymentSearch | null;
  /** One customer's payments only (`customerKeySql`): set by a customer's page, never by the query string. */
  customer: string | null;
}

/** Where a page of the list starts: the row before it (`older`) or after it (`newer`) in newest-first order. */
export interface Cursor {
  createdAt: number;
  id: string;
  direction: 'older' | 'newer';
}

/** The filters' own fields in the query string: what the page's links and the CSV link carry. */
export const FILTER_FIELDS = ['status', 'channel', 'from', 'to', 'min', 'max', 'q'] as const;

const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;
const CURSOR = /^(\d{1,15})_([A-Za-z0-9_-]{1,100})$/;

export function parsePaymentFilters(query: Query, timeZone: string): { filters: PaymentFilters; problems: string[] } {
  const problems: string[] = [];
  const text = (name: string) => query[name]?.trim() ?? '';
  const oneOf = <T extends string>(name: string, allowed: readonly T[], what: string): T | null => {
    const value = text(name);
    if (value === '') return null;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(`The ${what} "${value}" is not one of the list's; it was ignored.`);
    return null;
  };
  /** The instant the date in `name` bounds the list at: its own start, or (an inclusive end) the next day's. */
  const day = (name: string, what: string, bound: typeof startOfDay): number | null => {
    const value = text(name);
    if (value === '') return null;
    const start = bound(value, timeZone);
    if (start === null) problems.push(`The ${what} date "${value}" is not a date like 2026-11-25; it was ignored.`);
    return start;
  };
  const amount = (name: string, what: string): number | null => {
    const value = text(name);
    if (value === '') return null;
    if (AMOUNT.test(value)) return Math.round(Number(value) * 100);
    problems.push(`The ${what} amount "${value}" is not an amount like 1500 or 1500.50; it was ignored.`);
    return null;
  };

  const status = oneOf('status', PAYMENT_STATUSES, 'status');
  const channel = oneOf('channel', PAYMENT_CHANNELS, 'channel');
  const from = day('from', 'from', startOfDay);
  const to = day('to', 'to', startOfNextDay);
  const least = amount('min', 'least');
  const greatest = amount('max', 'greatest');
  // A range the wrong way round would match nothing, silently: both its ends are ignored, and said so.
  const datesReversed = from !== null && to !== null && from >= to;
  if (datesReversed)
    problems.push(
      `The from date "${text('from')}" is after the to date "${text('to')}", so no payment could match; both dates were ignored.`,
    );
  const amountsReversed = least !== null && greatest !== null && least > greatest;
  if (amountsReversed)
    problems.push(
      `The least amount "${text('min')}" is more than the greatest "${text('max')}", so no payment could match; both amounts were ignored.`,
    );
  const { search, problem } = parsePaymentSearch(text('q'));
  if (problem) problems.push(problem);
  return {
    filters: {
      status,
      channel,
      createdFrom: datesReversed ? null : from,
      createdBefore: datesReversed ? null : to,
      minMinor: amountsReversed ? null : least,
      maxMinor: amountsReversed ? null : greatest,
      search,
      customer: null,
    },
    problems,
  };
}

/** One customer's payments, whatever their status: their page's list. */
export function customerFilters(key: string): PaymentFilters {
  return {
    status: null,
    channel: null,
    createdFrom: null,
    createdBefore: null,
    minMinor: null,
    maxMinor: null,
    search: customerSearch(key),
    customer: key,
  };
}

/** `before=<created_at>_<id>` or `after=…`: the keyset cursor of the Older and Newer links. */
export function parseCursor(query: Query): { cursor: Cursor | null; problem: string | null } {
  const direction = query.after !== undefined ? 'newer' : query.before !== undefined ? 'older' : null;
  if (direction === null) return { cursor: null, problem: null };
  const match = CURSOR.exec((direction === 'newer' ? query.after : query.before) ?? '');
  if (!match) return { cursor: null, problem: 'The page link is not one of ours; the newest payments are shown.' };
  return { cursor: { createdAt: Number(match[1]), id: match[2]!, direction }, problem: null };
}

export function cursorParam(row: { created_at: number; id: string }): string {
  return `${row.created_at}_${row.id}`;
}
