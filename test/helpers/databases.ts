import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { quoteIdentifier, type Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { randomBase62 } from '../../src/shared/ids.ts';

export interface TestDatabase {
  kind: 'sqlite' | 'postgres';
  url: string;
  drop(): Promise<void>;
}

/** The backends every integration suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DATABASE_KINDS: Array<'sqlite' | 'postgres'> = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

/**
 * The backends the browser suites run on: SQLite, and PostgreSQL too with
 * TEST_BROWSER_DATABASES=all. A page reads and writes through the same services the integration
 * suites run on both databases; what a browser adds (layout, scripts, forms, axe) does not depend
 * on the database, and running it twice was a quarter of `npm test`'s time.
 */
export const BROWSER_DATABASE_KINDS: Array<'sqlite' | 'postgres'> =
  process.env.TEST_BROWSER_DATABASES === 'all' ? DATABASE_KINDS : ['sqlite'];

/** A fresh, empty database of the given kind: a temp SQLite file, or a new PostgreSQL database. */
export function freshDatabase(kind: 'sqlite' | 'postgres'): TestDatabase {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-test-'));
    return {
      kind,
      url: `sqlite:${path.join(dir, 'lipira.db')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = new URL(process.env.TEST_DATABASE_URL!);
  const name = `lipira_test_${randomBase62(10).toLowerCase()}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    async drop() {
      const admin = new URL(base);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      try {
        await client.query(`drop database if exists ${quoteIdentifier(name)} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A fresh SQLite database, migrated, for the enclosing suite's tests: opened before them, closed
 * and deleted after them. Read `.database` inside tests, once it is open.
 */
export function useMigratedSqlite(): { database: Database } {
  const file = freshDatabase('sqlite');
  const context = {} as { database: Database };
  before(async () => {
    context.database = await openMigratedDatabase(file.url);
  });
  after(async () => {
    await context.database.close();
    await file.drop();
  });
  return context;
}
