import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { useCleanup } from '../helpers/cleanup.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { startServe } from '../helpers/serve-process.ts';

/** What this machine's PostgreSQL server says of autovacuum: a server setting no test may change. */
async function serverAutovacuum(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum;
  } finally {
    await client.end();
  }
}

for (const kind of DATABASE_KINDS) {
  test(`lipira serve on ${kind} warns that tables are never analyzed exactly when PostgreSQL's autovacuum is off`, async (t) => {
    const cleanup = useCleanup(t);
    const database = freshDatabase(kind);
    cleanup(() => database.drop());
    const server = await startServe({ DATABASE_URL: database.url });
    cleanup(() => server.stop());
    const warned = /warning: autovacuum is off on this PostgreSQL server/.test(server.output);
    const off = kind === 'postgres' && (await serverAutovacuum(database.url)) === 'off';
    assert.equal(warned, off, server.output);
  });
}
