import type { Config } from '../config.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import { checkLedger, settleCollections } from '../ledger/ledger-service.ts';
import { noMorePositionals, parseArgs, UsageError } from './args.ts';
import { print, printError } from './output.ts';
import { systemClock } from '../shared/clock.ts';

export async function ledgerCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'check' && action !== 'settle') throw new UsageError('usage: lipira ledger check | settle');
  noMorePositionals(parseArgs(rest, []), 0);
  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    if (action === 'settle') {
      print(
        `Settled ${await settleCollections(database.db, systemClock.now())} collection account(s) into main balances.`,
      );
      return 0;
    }
    const problems = await checkLedger(database.db);
    for (const problem of problems) printError(problem);
    if (problems.length > 0) return 1;
    print(
      'Ledger OK: every transaction sums to zero, every balance equals the sum of its entries, every paid session has exactly one credited payment, every payment a session could not count is held for its refund, every refund paid out once at most, and every payout reserved once, then paid out or released once as it ended.',
    );
    return 0;
  } finally {
    await database.close();
  }
}
