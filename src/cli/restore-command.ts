import path from 'node:path';
import type { Config } from '../config.ts';
import { restoreDatabase } from '../operations/restore.ts';
import { noMorePositionals, parseArgs, UsageError } from './args.ts';
import { print } from './output.ts';

/** `lipira restore FILE [--replace]`: a backup checked, then put in place of the configured database while no gateway uses it. */
export async function restoreCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, [], ['replace']);
  const [file] = args.positionals;
  if (file === undefined) throw new UsageError('usage: lipira restore FILE [--replace]');
  noMorePositionals(args, 1);
  const source = path.resolve(file);
  const { passed, keptAside } = await restoreDatabase(source, config.databaseUrl, args.options.has('replace'));
  print(`Restored ${source}. Checked first: ${passed.join('; ')}.`);
  if (keptAside) print(`The database it replaced is kept as ${keptAside}.`);
  return 0;
}
