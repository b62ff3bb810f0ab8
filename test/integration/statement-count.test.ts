import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { prepared, preparedInsert } from '../../src/db/prepared.ts';
import { DATABASE_KINDS, freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const STATEMENTS = 'lipira_database_statements_total';

const readState = prepared((db, key: string) => db.selectFrom('app_state').select('value').where('key', '=', key));
const insertState = preparedInsert('app_state');

/** How many statements `work` sent through the database. */
async function statementsOf(database: Database, work: () => Promise<unknown>): Promise<number> {
  const before = database.statements.sent;
  await work();
  return database.statements.sent - before;
}

for (const kind of DATABASE_KINDS) {
  describe(`statements counted on ${kind}`, () => {
    let file: TestDatabase;
    let database: Database;

    before(async () => {
      file = freshDatabase(kind);
      database = await openMigratedDatabase(file.url);
    });
    after(async () => {
      await database.close();
      await file.drop();
    });

    test('a query built by Kysely is one statement', async () => {
      assert.equal(await statementsOf(database, () => sql`select 1`.execute(database.db)), 1);
    });

    // On SQLite a prepared read outside a transaction runs on the connection, not through Kysely.
    test('a prepared read is one statement', async () => {
      assert.equal(await statementsOf(database, () => readState(database.db, 'absent')), 1);
    });

    // On SQLite the transaction's prepared statements run on the connection it holds.
    test('a transaction counts its BEGIN and COMMIT beside its statements', async () => {
      const sent = await statementsOf(database, () =>
        database.transact(async (trx) => {
          await insertState(trx, { key: `statement-count-${kind}`, value: 'x' });
          await readState(trx, `statement-count-${kind}`);
        }),
      );
      assert.equal(sent, 4);
    });
  });

  describe(`${STATEMENTS} on ${kind}`, () => {
    let gw: TestGateway;

    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    test('/metrics shows the statements sent so far, as a counter', async () => {
      const { statements } = gw.gateway.database;
      await sql`select 1`.execute(gw.gateway.database.db);
      // The scrape itself reads the queues, and the workers poll meanwhile: the figure shown lies between.
      const before = statements.sent;
      const response = await call(gw.url, '/metrics');
      const after = statements.sent;
      assert.equal(response.status, 200, response.text);
      assert.match(response.text, new RegExp(`^# TYPE ${STATEMENTS} counter$`, 'm'));
      const shown = Number(new RegExp(`^${STATEMENTS} (\\S+)$`, 'm').exec(response.text)?.[1]);
      assert.ok(before > 0 && shown >= before && shown <= after, `${shown} between ${before} and ${after}`);
    });
  });
}
