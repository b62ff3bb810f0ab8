/**
 * A month's statement as a CSV file: for each of the merchant's balances (collection and main, in
 * each currency), its opening balance when the month began in the gateway's time zone, every
 * movement of the month oldest first with the balance after it, and its closing balance when the
 * next month began. The opening is what the balance's earlier entries add up to, so a month's
 * closing is the next month's opening, and each closing is its opening plus the month's movements.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../merchants/merchant-service.ts';
import { csvAmount, csvLine, type CsvValue } from '../csv.ts';
import { localDateTime } from '../../shared/zone-days.ts';
import { accountEntries, balancesAt, type BalanceAt, type StatementEntry } from './statement-repository.ts';
import { describeEntry } from './statement-views.ts';

/** A balance's movements are read this many at a time, so that a busy month is never one huge result. */
const BATCH = 1000;

export const MONTHLY_CSV_HEADER = [
  'row',
  'entry_id',
  'time',
  'time_zone',
  'balance',
  'currency',
  'kind',
  'description',
  'link',
  'amount_in',
  'amount_out',
  'balance_after',
];

export interface Month {
  /** `YYYY-MM`. */
  name: string;
  start: number;
  end: number;
}

export async function* monthlyStatementLines(
  db: Kysely<DB>,
  owner: Principal,
  month: Month,
  timeZone: string,
): AsyncGenerator<string> {
  yield csvLine(MONTHLY_CSV_HEADER);
  for (const balance of withKwacha(await balancesAt(db, owner, month.start))) {
    const line = (row: string, at: number, held: number, entry: StatementEntry | null) => {
      const described = entry && describeEntry(entry);
      const cells: CsvValue[] = [
        row,
        entry ? String(entry.id) : '',
        localDateTime(entry?.created_at ?? at, timeZone),
        timeZone,
        balance.account,
        balance.currency,
        entry?.kind ?? '',
        described?.text ??
          (row === 'opening' ? `Opening balance of ${month.name}` : `Closing balance of ${month.name}`),
        described?.href ?? '',
        entry && entry.amount_minor > 0 ? csvAmount(entry.amount_minor) : '',
        entry && entry.amount_minor < 0 ? csvAmount(-entry.amount_minor) : '',
        csvAmount(held),
      ];
      return csvLine(cells);
    };
    let held = balance.balanceMinor;
    yield line('opening', month.start, held, null);
    for (let after: number | null = null; balance.accountId !== null;) {
      const batch = await accountEntries(
        db,
        owner,
        balance.accountId,
        { from: month.start, to: month.end },
        after,
        BATCH,
      );
      for (const entry of batch) {
        held += entry.amount_minor;
        yield line('movement', entry.created_at, held, entry);
      }
      if (batch.length < BATCH) break;
      after = batch.at(-1)!.id;
    }
    yield line('closing', month.end, held, null);
  }
}

/** The balances as they are, and kwacha's two at zero when no money has moved yet: a statement always has them. */
function withKwacha(balances: BalanceAt[]): Array<Omit<BalanceAt, 'accountId'> & { accountId: string | null }> {
  const missing = (['collection', 'main'] as const)
    .filter((account) => !balances.some((b) => b.currency === 'MWK' && b.account === account))
    .map((account) => ({ accountId: null, account, currency: 'MWK', balanceMinor: 0 }));
  return [...missing, ...balances].sort(
    (a, b) => a.currency.localeCompare(b.currency) || a.account.localeCompare(b.account),
  );
}
