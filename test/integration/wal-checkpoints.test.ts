import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { CHECKPOINT_INTERVAL_MS, START_AFTER_WAL_BYTES } from '../../src/db/wal-checkpoints.ts';

/**
 * A serving gateway's SQLite WAL is copied back into the database by a thread of its own
 * (src/db/wal-checkpoints.ts), not by a commit on the event loop: a WAL past the size at which the
 * thread starts, far below the size at which a commit would checkpoint, is in the database file
 * within a few of the thread's intervals.
 */
describe('WAL checkpoints on sqlite', () => {
  let gw: TestGateway;
  let file: string;

  before(async () => {
    gw = await startTestGateway('sqlite');
    file = gw.database.url.slice('sqlite:'.length);
  });
  after(() => gw.close());

  test("the gateway's connection checkpoints only past four times the usual size", async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      gw.gateway.database.db,
    );
    assert.equal(rows[0]!.wal_autocheckpoint, 40_000);
  });

  test('what is committed reaches the database file from the thread', async () => {
    const { db } = gw.gateway.database;
    const sizeBefore = fs.statSync(file).size;
    assert.ok(fs.statSync(`${file}-wal`).size < START_AFTER_WAL_BYTES, 'the test starts below the size');
    // About 7 MB of log lines: past the WAL size at which the thread starts (START_AFTER_WAL_BYTES),
    // a couple of thousand pages against the 40,000 of a commit's checkpoint.
    for (let batch = 0; batch < 140; batch++)
      await db
        .insertInto('logs')
        .values(
          Array.from({ length: 100 }, (_, i) => ({
            owner_id: `wal-check-${batch}-${i}`,
            type: 'log',
            message: 'x'.repeat(500),
            created_at: Date.now(),
          })),
        )
        .execute();
    const deadline = Date.now() + 10 * CHECKPOINT_INTERVAL_MS;
    while (fs.statSync(file).size <= sizeBefore + 5_000_000 && Date.now() < deadline) await sleep(100);
    assert.ok(
      fs.statSync(file).size > sizeBefore + 5_000_000,
      `the database file stayed at ${fs.statSync(file).size} bytes (${sizeBefore} before)`,
    );
  });
});
