import { DEFAULT_MIGRATION_TABLE, sql, type Kysely, type Transaction } from 'kysely';
import { dataTables, inReferenceOrder, postgresReferences, type CatalogTable } from '../db/catalog.ts';
import { quoteIdentifier, type Database } from '../db/database.ts';
import { migrationNames, openMigratedDatabase } from '../db/migrate.ts';
import type { DB } from '../db/schema.ts';
import { openSqliteAlone } from '../db/sqlite-alone.ts';
import { checkLedger } from '../ledger/ledger-service.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';

/** Rows sent in one INSERT, so that a large table neither sits whole in memory nor makes one huge statement. */
export const BATCH_ROWS = 500;

/** PostgreSQL counts a statement's parameters in 16 bits. */
const MAX_PARAMETERS = 65_535;

/**
 * The column types a migrated PostgreSQL database has, each of which takes SQLite's value as it is:
 * src/db/schema.ts keeps one meaning on both (money and times bigint, booleans 0/1 integers, JSON
 * as text), so there is nothing to convert. A column of another type is refused before anything is
 * copied, rather than copied wrongly: the day one is added, the move must learn its conversion.
 */
const COPIED_AS_THEY_ARE: ReadonlySet<string> = new Set(['text', 'int8', 'int4']);

export interface TableMoved {
  table: string;
  sqliteRows: number;
  postgresRows: number;
}

export interface DataMoved {
  tables: TableMoved[];
  /** Ledger accounts whose balances were compared, all equal. */
  accounts: number;
}

/** Any table by name, for the copy, which reads and writes tables it learns from the databases. */
type AnyTables = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Moves a gateway's data from a SQLite database to an empty PostgreSQL one (docs/operate/move-to-postgresql.md):
 *
 * 1. holds the SQLite file alone, refusing while a gateway has it open (src/db/sqlite-alone.ts);
 * 2. refuses a source not at this build's migrations, or whose ledger check fails;
 * 3. migrates PostgreSQL to this build's schema (the database is created if missing);
 * 4. in one PostgreSQL transaction: refuses if any table holds a row, copies every table the two
 *    databases list (in an order where each table follows those it references) in batches, puts
 *    the sequences past the copied ids, and checks each table's rows, `lipira ledger check` and
 *    every balance against SQLite's before committing, so a failure anywhere leaves nothing written.
 *
 * `onTable` hears of each table as it is copied and counted. Refusals and failures are thrown as
 * errors whose message says what to do.
 */
export async function migrateData(
  sqliteFile: string,
  postgresUrl: string,
  onTable: (moved: TableMoved) => void,
): Promise<DataMoved> {
  const source = openSqliteAlone(sqliteFile);
  try {
    await refuseUnlessCurrent(source, `sqlite:${sqliteFile}`);
    await refuseUnlessLedgerClean(source, `sqlite:${sqliteFile}`);
    const target = await openTarget(postgresUrl);
    try {
      const tables = await tablesToCopy(source, target);
      try {
        return await target.db.transaction().execute((trx) => copyAndCheck(source, trx, tables, onTable));
      } catch (error) {
        throw new Error(
          `${messageOf(error)}\nNothing was written to ${target.description}: the copy is one transaction, rolled back.`,
        );
      }
    } finally {
      await target.close();
    }
  } finally {
    await source.destroy();
  }
}

/** PostgreSQL at this build's schema, the database created if missing; what stops that, said with the URL it was about. */
async function openTarget(url: string): Promise<Database> {
  try {
    return await openMigratedDatabase(url);
  } catch (error) {
    throw new Error(`cannot open and migrate ${maskUrlSecrets(url)}: ${messageOf(error)}`);
  }
}

/** The migrations SQLite recorded must be exactly this build's: behind, it lacks columns; ahead, it has ones this build would not copy. */
async function refuseUnlessCurrent(source: Kysely<DB>, name: string): Promise<void> {
  const { rows: recorded } = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and name = ${DEFAULT_MIGRATION_TABLE}`.execute(source);
  if (recorded.length === 0) throw new Error(`${name} is not a Lipira database: it records no migrations`);
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(source);
  const applied = new Set(rows.map((row) => row.name));
  const known = migrationNames();
  const unknown = [...applied].filter((migration) => !known.includes(migration));
  if (unknown.length > 0)
    throw new Error(
      `${name} was migrated by a newer Lipira (${unknown.join(', ')} unknown to this one): move it with that version`,
    );
  const missing = known.filter((migration) => !applied.has(migration));
  if (missing.length > 0)
    throw new Error(
      `${name} is not at this Lipira's current migration (it lacks ${missing.join(', ')}): ` +
        `run \`DATABASE_URL=${name} lipira migrate\` first, then migrate-data again`,
    );
}

/** A ledger that does not balance would be copied as it is and fail the check on PostgreSQL: said now, about the source. */
async function refuseUnlessLedgerClean(source: Kysely<DB>, name: string): Promise<void> {
  const problems = await checkLedger(source);
  if (problems.length > 0)
    throw new Error(
      `the ledger check fails on ${name}, so the move would copy a ledger that does not balance:\n  ${problems.join('\n  ')}\n` +
        'See `lipira ledger check` (with DATABASE_URL set to it) and resolve these first.',
    );
}

/**
 * Every table the two databases hold, with PostgreSQL's columns, in reference order. Both must list
 * the same tables with the same columns (both are at this build's migrations, so they do unless a
 * migration made them differ), and every column must be of a type copied as it is.
 */
async function tablesToCopy(source: Kysely<DB>, target: Database): Promise<CatalogTable[]> {
  const sqliteTables = new Map((await dataTables(source)).map((table) => [table.name, table]));
  const postgresTables = await dataTables(target.db);
  const onlyPostgres = postgresTables.filter((table) => !sqliteTables.has(table.name)).map((table) => table.name);
  const onlySqlite = [...sqliteTables.keys()].filter((name) => !postgresTables.some((table) => table.name === name));
  const differences = [
    ...(onlySqlite.length > 0 ? [`tables only on SQLite: ${onlySqlite.join(', ')}`] : []),
    ...(onlyPostgres.length > 0 ? [`tables only on PostgreSQL: ${onlyPostgres.join(', ')}`] : []),
  ];
  for (const table of postgresTables) {
    for (const column of table.columns)
      if (!COPIED_AS_THEY_ARE.has(column.type))
        differences.push(`${table.name}.${column.name} is of type ${column.type}, which migrate-data cannot convert`);
    const sqliteColumns = sqliteTables.get(table.name)?.columns.map((column) => column.name);
    if (!sqliteColumns) continue;
    const postgresColumns = table.columns.map((column) => column.name);
    const unlike = [
      ...sqliteColumns.filter((column) => !postgresColumns.includes(column)),
      ...postgresColumns.filter((column) => !sqliteColumns.includes(column)),
    ];
    if (unlike.length > 0) differences.push(`${table.name}: columns ${unlike.join(', ')} are on one side only`);
  }
  if (differences.length > 0)
    throw new Error(
      `the two databases' schemas differ, so the move cannot copy one into the other:\n  ${differences.join('\n  ')}`,
    );
  return inReferenceOrder(postgresTables, await postgresReferences(target.db));
}

async function copyAndCheck(
  source: Kysely<DB>,
  trx: Transaction<DB>,
  tables: CatalogTable[],
  onTable: (moved: TableMoved) => void,
): Promise<DataMoved> {
  // Nobody writes to the target while the copy runs, and it is empty as the copy starts.
  await sql`lock table ${sql.join(tables.map((table) => sql.table(table.name)))} in access exclusive mode`.execute(trx);
  await refuseUnlessEmpty(trx, tables);
  const moved: TableMoved[] = [];
  for (const table of tables) {
    const copied = await copyTable(source, trx, table);
    const counted = {
      table: table.name,
      sqliteRows: await rowCount(source, table),
      postgresRows: await rowCount(trx, table),
    };
    if (counted.sqliteRows !== counted.postgresRows || counted.postgresRows !== copied)
      throw new Error(
        `${table.name}: ${counted.sqliteRows} rows on SQLite, ${copied} copied, ${counted.postgresRows} on PostgreSQL`,
      );
    moved.push(counted);
    onTable(counted);
  }
  await putSequencesPastCopiedIds(trx, tables);
  const problems = await checkLedger(trx);
  if (problems.length > 0) throw new Error(`the ledger check fails on the copy:\n  ${problems.join('\n  ')}`);
  return { tables: moved, accounts: await compareBalances(source, trx) };
}

async function refuseUnlessEmpty(trx: Transaction<DB>, tables: CatalogTable[]): Promise<void> {
  const holding: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{
      found: boolean;
    }>`select exists (select 1 from ${sql.table(table.name)}) as found`.execute(trx);
    if (rows[0]!.found) holding.push(table.name);
  }
  if (holding.length > 0)
    throw new Error(
      `the PostgreSQL database already holds data (in ${holding.join(', ')}): migrate-data moves into an empty database only. ` +
        'Name a new database (it is created if missing), or empty this one yourself if its data is not needed.',
    );
}

/** Reads the SQLite table row by row and inserts the rows in batches; resolves to how many it inserted. */
async function copyTable(source: Kysely<DB>, trx: Transaction<DB>, table: CatalogTable): Promise<number> {
  const columns = table.columns.map((column) => column.name);
  const perBatch = Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / columns.length));
  const insert = (rows: Array<Record<string, unknown>>) =>
    (trx as unknown as AnyTables).insertInto(table.name).values(rows).execute();
  let batch: Array<Record<string, unknown>> = [];
  let copied = 0;
  try {
    for await (const row of (source as unknown as AnyTables).selectFrom(table.name).select(columns).stream()) {
      batch.push(row);
      if (batch.length < perBatch) continue;
      await insert(batch);
      copied += batch.length;
      batch = [];
    }
    if (batch.length > 0) await insert(batch);
  } catch (error) {
    throw new Error(`copying ${table.name} failed: ${messageOf(error)}`);
  }
  return copied + batch.length;
}

async function rowCount(db: Kysely<DB>, table: CatalogTable): Promise<number> {
  const { rows } = await sql<{
    count: number | string;
  }>`select count(*) as count from ${sql.table(table.name)}`.execute(db);
  return Number(rows[0]!.count);
}

/** The copy wrote the ids a sequence would have given: the next one given must come after them. */
async function putSequencesPastCopiedIds(trx: Transaction<DB>, tables: CatalogTable[]): Promise<void> {
  for (const table of tables)
    for (const column of table.columns.filter((candidate) => candidate.serial))
      await sql`select setval(pg_get_serial_sequence(${quoteIdentifier(table.name)}, ${column.name}),
        coalesce(max(${sql.ref(column.name)}), 0) + 1, false) from ${sql.table(table.name)}`.execute(trx);
}

/** Every ledger account's balance must be the same on both sides; resolves to how many were compared. */
async function compareBalances(source: Kysely<DB>, trx: Transaction<DB>): Promise<number> {
  const balances = (db: Kysely<DB>) => db.selectFrom('ledger_accounts').select(['id', 'balance_minor']).execute();
  const before = new Map((await balances(source)).map((account) => [account.id, account.balance_minor]));
  const after = await balances(trx);
  const unequal = after.filter((account) => before.get(account.id) !== account.balance_minor);
  if (unequal.length > 0 || after.length !== before.size)
    throw new Error(
      `ledger balances differ: ${unequal.map((account) => `${account.id} is ${before.get(account.id)} on SQLite, ${account.balance_minor} on PostgreSQL`).join('; ')} (${before.size} accounts on SQLite, ${after.length} on PostgreSQL)`,
    );
  return after.length;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
