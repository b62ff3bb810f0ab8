import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.ts';
import type { DB } from './schema.ts';

export interface CatalogColumn {
  name: string;
  /** As the database names it: PostgreSQL's `int8`, `text`…; SQLite's declared type. */
  type: string;
  /** Filled from a sequence (PostgreSQL's `bigserial`), which must stay ahead of the rows. */
  serial: boolean;
}

export interface CatalogTable {
  name: string;
  columns: CatalogColumn[];
}

/**
 * The tables that hold the gateway's rows, as the database itself lists them, so that an
 * operation over every table cannot miss one a later migration adds: not views, not Kysely's
 * record of the migrations, not SQLite's own tables, and not SQLite's full-text indexes (a virtual
 * table with the shadow tables that store it), which are indexes as PostgreSQL's GIN indexes over
 * the same text are (src/db/migrations/0025_payment_search.ts). In name order.
 */
export async function dataTables(db: Kysely<DB>): Promise<CatalogTable[]> {
  const postgres = isPostgres(db);
  const ownSchema = postgres
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema
    : null;
  const indexTables = postgres ? new Set<string>() : await sqliteIndexTables(db);
  const tables = await db.introspection.getTables();
  return tables
    .filter((table) => !table.isView && (postgres ? table.schema === ownSchema : !indexTables.has(table.name)))
    .map((table) => ({
      name: table.name,
      columns: table.columns.map((column) => ({
        name: column.name,
        type: column.dataType,
        serial: column.isAutoIncrementing,
      })),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function sqliteIndexTables(db: Kysely<DB>): Promise<Set<string>> {
  const { rows } = await sql<{
    name: string;
  }>`select name from pragma_table_list where schema = 'main' and type in ('virtual', 'shadow')`.execute(db);
  return new Set(rows.map((row) => row.name));
}

/** PostgreSQL: each table of the current schema with a foreign key, and the tables its keys reference. */
export async function postgresReferences(db: Kysely<DB>): Promise<Map<string, Set<string>>> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select child.relname as child, parent.relname as parent
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    where c.contype = 'f' and child.relnamespace = current_schema()::regnamespace`.execute(db);
  const references = new Map<string, Set<string>>();
  for (const { child, parent } of rows) references.set(child, (references.get(child) ?? new Set()).add(parent));
  return references;
}

/**
 * The tables ordered so that each comes after every table it references: rows inserted in this
 * order never name a row not yet there. Ties in name order, so the order is the same every run.
 * A cycle of references (no table of the schema has one) cannot be ordered and is refused.
 */
export function inReferenceOrder<Table extends { name: string }>(
  tables: readonly Table[],
  references: ReadonlyMap<string, ReadonlySet<string>>,
): Table[] {
  const ordered: Table[] = [];
  const placed = new Set<string>();
  let waiting = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (waiting.length > 0) {
    const ready = waiting.filter((table) =>
      [...(references.get(table.name) ?? [])].every((parent) => placed.has(parent)),
    );
    if (ready.length === 0)
      throw new Error(`the tables ${waiting.map((table) => table.name).join(', ')} reference one another in a cycle`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    waiting = waiting.filter((table) => !placed.has(table.name));
  }
  return ordered;
}
