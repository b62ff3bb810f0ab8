import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { SEARCH_INDEXES } from '../../src/db/search-text.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';

const SCHEMA = path.resolve(import.meta.dirname, '../../src/db/schema.ts');
const ID_TYPES = path.resolve(import.meta.dirname, '../../src/shared/ids.ts');

/** A table's columns, each with whether it may hold null. */
type Columns = Map<string, boolean>;

/**
 * What src/db/schema.ts declares: each table of its `DB` interface, with the columns of the
 * interface the table names and whether each column's type admits null (`| null`).
 */
function declaredTables(): Map<string, Columns> {
  const source = ts.createSourceFile(SCHEMA, fs.readFileSync(SCHEMA, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeNode>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement.type);
  }
  // The branded ids the tables use (a charge's ref) are declared with the id generator.
  const idTypes = ts.createSourceFile(ID_TYPES, fs.readFileSync(ID_TYPES, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of idTypes.statements)
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement.type);
  const members = (declaration: ts.InterfaceDeclaration) =>
    declaration.members.map((member) => {
      assert.ok(
        ts.isPropertySignature(member) && member.type,
        `${declaration.name.text} has a member that is no column`,
      );
      return { name: member.name.getText(source), type: member.type };
    });

  /** Whether a column's type admits null; a type this cannot see through fails rather than guesses. */
  const nullable = (type: ts.TypeNode): boolean => {
    if (ts.isParenthesizedTypeNode(type)) return nullable(type.type);
    if (ts.isUnionTypeNode(type)) return type.types.some(nullable);
    if (ts.isLiteralTypeNode(type)) return type.literal.kind === ts.SyntaxKind.NullKeyword;
    if (ts.isTypeReferenceNode(type)) {
      const name = type.typeName.getText(source);
      const [first, second] = type.typeArguments ?? [];
      // Generated<T> only makes T optional on insert; Exclude<T, U> keeps null only when U leaves it.
      if (name === 'Generated' && first) return nullable(first);
      if (name === 'Exclude' && first && second) return nullable(first) && !nullable(second);
      const alias = aliases.get(name);
      assert.ok(alias, `src/db/schema.ts: cannot tell whether ${name} admits null`);
      return nullable(alias);
    }
    return false;
  };

  const db = interfaces.get('DB');
  assert.ok(db, 'src/db/schema.ts declares interface DB');
  const tables = new Map<string, Columns>();
  for (const { name: table, type } of members(db)) {
    assert.ok(ts.isTypeReferenceNode(type), `DB.${table} names an interface`);
    const declaration = interfaces.get(type.typeName.getText(source));
    assert.ok(declaration, `DB.${table} is ${type.getText(source)}, an interface declared in src/db/schema.ts`);
    tables.set(table, new Map(members(declaration).map((column) => [column.name, nullable(column.type)])));
  }
  return tables;
}

/**
 * What a migrated database holds: its tables and their columns, with whether each may hold null.
 * SQLite's full-text indexes are virtual tables, each with shadow tables that store it: indexes,
 * as PostgreSQL's GIN indexes over the same text are, so no table of the schema (the test below
 * checks they are there).
 */
async function migratedTables(database: Database): Promise<Map<string, Columns>> {
  const tables = new Map<string, Columns>();
  const indexTables = database.dialect === 'sqlite' ? await sqliteIndexTables(database) : new Set();
  for (const table of await database.db.introspection.getTables()) {
    if (table.isView || (table.schema !== undefined && table.schema !== 'public')) continue;
    if (indexTables.has(table.name)) continue;
    // SQLite lets a non-integer PRIMARY KEY hold null, a quirk kept for old versions; PostgreSQL does not.
    const primaryKey = database.dialect === 'sqlite' ? await sqlitePrimaryKey(database, table.name) : new Set();
    tables.set(
      table.name,
      new Map(table.columns.map((column) => [column.name, column.isNullable && !primaryKey.has(column.name)])),
    );
  }
  return tables;
}

/** SQLite's virtual tables and the shadow tables behind them, as it lists them itself. */
async function sqliteIndexTables(database: Database): Promise<Set<string>> {
  const { rows } = await sql<{
    name: string;
  }>`select name from pragma_table_list where schema = 'main' and type in ('virtual', 'shadow')`.execute(database.db);
  return new Set(rows.map((row) => row.name));
}

/** The full-text indexes a migrated database has: SQLite's FTS5 tables, PostgreSQL's GIN indexes. */
async function fullTextIndexes(database: Database): Promise<string[]> {
  const { rows } =
    database.dialect === 'sqlite'
      ? await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and sql like 'create virtual table % using fts5(%'`.execute(
          database.db,
        )
      : await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = 'public' and indexdef like '% USING gin %gin_trgm_ops%'`.execute(
          database.db,
        );
  return rows.map((row) => row.name).sort();
}

async function sqlitePrimaryKey(database: Database, table: string): Promise<Set<string>> {
  const { rows } = await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${table})`.execute(
    database.db,
  );
  return new Set(rows.filter((row) => row.pk > 0).map((row) => row.name));
}

/** Each difference as one line naming the table and column. */
function differences(declared: Map<string, Columns>, migrated: Map<string, Columns>): string[] {
  const found: string[] = [];
  const nullness = (nullable: boolean) => (nullable ? 'nullable' : 'not null');
  for (const table of new Set([...declared.keys(), ...migrated.keys()])) {
    const inSchema = declared.get(table);
    const inDatabase = migrated.get(table);
    if (!inSchema) found.push(`${table}: made by the migrations, missing from DB in src/db/schema.ts`);
    else if (!inDatabase) found.push(`${table}: in DB in src/db/schema.ts, made by no migration`);
    else {
      for (const column of new Set([...inSchema.keys(), ...inDatabase.keys()])) {
        const schemaSays = inSchema.get(column);
        const databaseSays = inDatabase.get(column);
        if (schemaSays === undefined) found.push(`${table}.${column}: made by the migrations, missing from schema.ts`);
        else if (databaseSays === undefined) found.push(`${table}.${column}: in schema.ts, made by no migration`);
        else if (schemaSays !== databaseSays)
          found.push(
            `${table}.${column}: ${nullness(schemaSays)} in schema.ts, ${nullness(databaseSays)} when migrated`,
          );
      }
    }
  }
  return found;
}

test('src/db/schema.ts is read as its tables, columns and nulls', () => {
  const declared = declaredTables();
  assert.equal(declared.get('charges')?.get('session_id'), true);
  assert.equal(declared.get('charges')?.get('failure_code'), true, 'Generated<string | null>');
  assert.equal(declared.get('charges')?.get('status'), false, 'a union of strings, through its alias');
  assert.equal(declared.get('invitations')?.get('role'), false, 'Exclude<UserRole, …>');
  assert.equal(declared.get('ledger_entries')?.get('id'), false, 'Generated<number>');
});

for (const kind of DATABASE_KINDS) {
  describe(`src/db/schema.ts and the migrations on ${kind}`, () => {
    let fresh: TestDatabase;
    let database: Database;
    before(async () => {
      fresh = freshDatabase(kind);
      database = await openMigratedDatabase(fresh.url);
    });
    after(async () => {
      await database.close();
      await fresh.drop();
    });

    test('declare the same tables and columns, each nullable or not alike', async () => {
      assert.deepEqual(differences(declaredTables(), await migratedTables(database)), []);
    });

    test('the full-text indexes src/db/search-text.ts names are made, and no other', async () => {
      const named = SEARCH_INDEXES.flatMap((index) =>
        kind === 'sqlite' ? [index.name] : index.trigramIndexes.map((trigrams) => trigrams.name),
      );
      assert.deepEqual(await fullTextIndexes(database), named.sort());
    });
  });
}
