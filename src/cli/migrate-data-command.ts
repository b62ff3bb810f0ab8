import type { Config } from '../config.ts';
import { migrateData, type TableMoved } from '../operations/migrate-data.ts';
import { ConfigError } from '../settings/config-error.ts';
import { databaseUrl } from '../settings/kinds.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';
import { noMorePositionals, parseArgs, requiredOption, UsageError, type ParsedArgs } from './args.ts';
import { print } from './output.ts';

const USAGE = 'usage: lipira migrate-data --from sqlite:PATH --to postgres://USER@HOST:PORT/DATABASE';

/**
 * `lipira migrate-data --from sqlite:PATH --to postgres://…`: moves a gateway's data from SQLite to
 * an empty PostgreSQL database (src/operations/migrate-data.ts), printing each table as it is
 * copied and what was checked. Exit 0 once committed; 1 when refused or failed, with nothing written.
 */
export async function migrateDataCommand(argv: string[], _config: Config): Promise<number> {
  const args = parseArgs(argv, ['from', 'to']);
  noMorePositionals(args, 0);
  const from = databaseOption(args, 'from');
  const to = databaseOption(args, 'to');
  if (!from.startsWith('sqlite:')) throw new UsageError(`--from must name a SQLite database (sqlite:PATH)\n${USAGE}`);
  if (to.startsWith('sqlite:')) throw new UsageError(`--to must name a PostgreSQL database (postgres://…)\n${USAGE}`);
  print(`Moving ${from} to ${maskUrlSecrets(to)}.`);
  print(
    'The gateway must be stopped: this holds the SQLite file alone while it copies, and refuses while anything has it open.',
  );
  let first = true;
  const moved = await migrateData(from.slice('sqlite:'.length), to, (table: TableMoved) => {
    // The heading waits for the first table copied: a refusal comes before it.
    if (first) print(`\n${row('table', 'SQLite', 'PostgreSQL')}`);
    first = false;
    print(row(table.table, table.sqliteRows, table.postgresRows));
  });
  const total = (side: 'sqliteRows' | 'postgresRows') => moved.tables.reduce((sum, table) => sum + table[side], 0);
  print(row('(all)', total('sqliteRows'), total('postgresRows')));
  print();
  print(
    `Checked before committing: ${moved.tables.length} tables, each with as many rows on PostgreSQL as on SQLite; ` +
      `the ledger check (\`lipira ledger check\`) clean on PostgreSQL; ${moved.accounts} ledger accounts, each with the same balance on both.`,
  );
  print(`Done. Set DATABASE_URL=${maskUrlSecrets(to)} and start the gateway; ${from} is left as it was.`);
  return 0;
}

/** The option as a DATABASE_URL would be read (src/settings/kinds.ts), a bad one a usage error naming the option. */
function databaseOption(args: ParsedArgs, name: 'from' | 'to'): string {
  const raw = requiredOption(args, name).trim();
  try {
    return databaseUrl.parse(raw, `--${name}`, {});
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--${name} ${error.problem}\n${USAGE}`);
    throw error;
  }
}

function row(table: string, sqlite: number | string, postgres: number | string): string {
  return `  ${table.padEnd(24)} ${String(sqlite).padStart(10)} ${String(postgres).padStart(12)}`;
}
