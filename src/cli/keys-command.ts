import type { Config } from '../config.ts';
import { rollSecretKey } from '../merchants/merchant-service.ts';
import { parseDuration } from '../shared/time.ts';
import { noMorePositionals, parseArgs, requiredOption, stringOption, UsageError } from './args.ts';
import { print, printError, printJson } from './output.ts';
import { openMigratedDatabase } from '../db/migrate.ts';
import { systemClock } from '../shared/clock.ts';

const ROLL_USAGE = 'usage: lipira keys roll ID --mode test|live [--expire-old-in DURATION] [--json]';

export async function keysCommand(argv: string[], config: Config): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'roll') throw new UsageError(ROLL_USAGE);
  const args = parseArgs(rest, ['mode', 'expire-old-in'], ['json']);
  const [id] = args.positionals;
  if (!id) throw new UsageError(ROLL_USAGE);
  noMorePositionals(args, 1);
  const mode = requiredOption(args, 'mode');
  if (mode !== 'test' && mode !== 'live') throw new UsageError(`--mode must be test or live (got "${mode}")`);
  const expireText = stringOption(args, 'expire-old-in') ?? '24h';
  const expireOldInMs = parseDuration(expireText);
  if (expireOldInMs === null)
    throw new UsageError(`--expire-old-in must be a duration such as 0, 90s, 30m, 24h or 7d (got "${expireText}")`);

  const database = await openMigratedDatabase(config.databaseUrl);
  try {
    const rolled = await rollSecretKey(
      database.db,
      { merchantId: id, mode },
      { expireOldInMs, now: systemClock.now() },
    );
    if (!rolled) {
      printError(`no merchant with id "${id}"`);
      return 1;
    }
    const view = { ...rolled, old_keys_expire_at: new Date(rolled.old_keys_expire_at).toISOString() };
    if (args.options.has('json')) {
      printJson(view);
    } else {
      print(`New ${mode} secret key for ${id} (shown only this once):`);
      print(`  ${rolled.secret_key}`);
      print(`Older ${mode} secret keys stop working at ${view.old_keys_expire_at}.`);
    }
    return 0;
  } finally {
    await database.close();
  }
}
