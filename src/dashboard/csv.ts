/**
 * The dashboard's CSV files (RFC 4180): lines end in CRLF, a cell holding a comma, a quote or a
 * line break is quoted with its quotes doubled. Text a spreadsheet would run as a formula (a cell
 * starting with = + - @, a tab or a carriage return) gets a leading apostrophe, so that a
 * customer's name or a merchant's reference cannot become a formula on the computer of whoever
 * opens the file. Amounts are the dashboard's own numbers: plain decimals (`1250.00`, no thousands
 * separator), never guarded, so that a spreadsheet reads them as numbers.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** An amount in minor units, written as a plain decimal. */
export interface CsvAmount {
  minor: number;
}

export type CsvValue = string | CsvAmount;

export const csvAmount = (minor: number): CsvAmount => ({ minor });

export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(cells: readonly CsvValue[]): string {
  return `${cells.map((cell) => (typeof cell === 'string' ? csvCell(cell) : (cell.minor / 100).toFixed(2))).join(',')}\r\n`;
}

/** Sends a CSV file to download, never cached nor sniffed; `lines` may come a batch at a time. */
export function sendCsv(reply: FastifyReply, filename: string, lines: AsyncIterable<string> | string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(typeof lines === 'string' ? lines : Readable.from(lines));
}
