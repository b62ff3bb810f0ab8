import path from 'node:path';
import type { Config } from '../config.ts';
import { backupDatabase } from '../operations/backup.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';
import { noMorePositionals, parseArgs, UsageError } from './args.ts';
import { print } from './output.ts';

/** `lipira backup FILE`: a consistent copy of the configured database, taken while gateways serve it, and checked. */
export async function backupCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, []);
  const [file] = args.positionals;
  if (file === undefined) throw new UsageError('usage: lipira backup FILE');
  noMorePositionals(args, 1);
  const target = path.resolve(file);
  const { passed, bytes } = await backupDatabase(config.databaseUrl, target);
  print(`Backed up ${maskUrlSecrets(config.databaseUrl)} to ${target} (${bytes} bytes).`);
  print(`Checked: ${passed.join('; ')}.`);
  return 0;
}
