import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';

// Hot reads are named statements on PostgreSQL (src/db/prepared.ts): each connection has the
// server parse and plan them once.
for (const kind of DATABASE_KINDS.filter((kind) => kind === 'postgres')) {
  describe(`named statements on ${kind}`, () => {
    const ctx = useTestGateway(kind);
    const verify = (txRef: string) =>
      call(ctx.gw.url, `/verify-payment/${txRef}`, { key: ctx.merchant.test_secret_key });

    test('a verification is kept parsed and planned by the server, under a name', async () => {
      const body = currentBody();
      assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      // One request at a time, the pool lends its most recently used connection, the one that
      // verified; but the background workers borrow connections too, and may have taken it in
      // between, so the look is repeated (an unnamed statement would never show, however often).
      let names: string[] = [];
      for (let look = 0; look < 10; look++) {
        assert.equal((await verify(String(body.tx_ref))).status, 200);
        const { rows } = await sql<{
          name: string;
          statement: string;
        }>`select name, statement from pg_prepared_statements`.execute(ctx.gw.gateway.database.db);
        names = rows.filter((row) => row.statement.includes('"checkout_sessions"')).map((row) => row.name);
        if (names.some((name) => name.startsWith('lipira_'))) break;
      }
      assert.ok(
        names.some((name) => name.startsWith('lipira_')),
        `prepared on the server: ${JSON.stringify(names)}`,
      );
    });

    test('after a migration adds a column under the running process, verifications still answer', async () => {
      const bodies = Array.from({ length: 12 }, () => currentBody());
      for (const body of bodies)
        assert.equal((await call(ctx.gw.url, '/payment', { key: ctx.merchant.test_secret_key, body })).status, 201);
      // Concurrently, so that several of the pool's connections have the statement prepared.
      assert.deepEqual(
        (await Promise.all(bodies.map((body) => verify(String(body.tx_ref))))).map((res) => res.status),
        bodies.map(() => 200),
      );
      await sql`alter table checkout_sessions add column added_by_a_later_release text`.execute(
        ctx.gw.gateway.database.db,
      );
      const after = await Promise.all(bodies.map((body) => verify(String(body.tx_ref))));
      assert.deepEqual(
        after.map((res) => res.status),
        bodies.map(() => 200),
        JSON.stringify(after.find((res) => res.status !== 200)?.body),
      );
      assert.deepEqual(
        after.map((res) => res.body.data.tx_ref),
        bodies.map((body) => body.tx_ref),
      );
    });
  });
}
