import pg from 'pg';
import { quoteIdentifier } from '../../src/db/database.ts';
import type { TestDatabase } from './databases.ts';

/** Drops the databases a PostgreSQL restore kept aside for `testDb`. */
export async function dropKeptAside(testDb: TestDatabase): Promise<void> {
  if (testDb.kind !== 'postgres') return;
  const admin = new URL(testDb.url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const aside = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [
      `${name}\\_replaced\\_%`,
    ]);
    for (const { datname } of aside.rows) await client.query(`drop database ${quoteIdentifier(datname)} with (force)`);
  } finally {
    await client.end();
  }
}
