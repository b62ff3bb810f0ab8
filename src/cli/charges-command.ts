import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import { listInReview } from '../payments/review-repository.ts';
import { moneyText } from '../shared/money.ts';
import { noMorePositionals, parseArgs, UsageError } from './args.ts';
import { print, printJson } from './output.ts';

/** `lipira charges review`: the live payments, payouts and refunds an operator left without a final answer for too long. */
export async function chargesCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'review') throw new UsageError('usage: lipira charges review [--json]');
  const args = parseArgs(rest, [], ['json']);
  noMorePositionals(args, 0);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const rows = await listInReview(database.db);
    if (args.options.has('json')) {
      printJson(
        rows.map((row) => ({
          ...row,
          created_at: new Date(row.created_at).toISOString(),
          updated_at: new Date(row.updated_at).toISOString(),
        })),
      );
    } else if (rows.length === 0) {
      print('Nothing to review: every live payment, payout and refund has a final answer or is within its wait.');
    } else {
      for (const row of rows) {
        print(
          `${row.kind.padEnd(7)}  ${row.reference}  ${row.merchant_id}  ${moneyText(row.currency, row.amount_minor)}  since ${new Date(row.created_at).toISOString()}  ${row.review_reason}`,
        );
      }
    }
    return 0;
  } finally {
    await database.close();
  }
}
