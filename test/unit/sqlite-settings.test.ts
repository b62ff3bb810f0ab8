import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { freshDatabase } from '../helpers/databases.ts';

const file = freshDatabase('sqlite');
let database: Database;

before(async () => {
  database = await openMigratedDatabase(file.url);
});
after(async () => {
  await database.close();
  await file.drop();
});

async function pragma(name: string): Promise<unknown> {
  const { rows } = await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(database.db);
  return Object.values(rows[0]!)[0];
}

test('SQLite runs in WAL mode with every commit synced to disk (synchronous = FULL)', async () => {
  assert.equal(await pragma('journal_mode'), 'wal');
  assert.equal(await pragma('synchronous'), 2);
  assert.equal(await pragma('foreign_keys'), 1);
});

test('commits copy the WAL back into the database every 10,000 pages, not every 1,000', async () => {
  assert.equal(await pragma('wal_autocheckpoint'), 10_000);
});
