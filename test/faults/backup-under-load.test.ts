import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { inBatches } from '../helpers/batches.ts';
import { useCleanup } from '../helpers/cleanup.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startServe } from '../helpers/serve-process.ts';
import { dropKeptAside } from '../helpers/kept-aside.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';
import { reportScenario } from './report.ts';

/**
 * A backup taken in the middle of a payment load, then the gateway killed (issue 34). `lipira
 * backup` runs while clients create sessions and pay them by mobile money on the hosted page; once
 * it has finished the load goes on a little and the gateway is SIGKILLed. The backup restored in
 * place of the crashed database must hold every payment acknowledged before the backup began (each
 * paid one as paid), pass `lipira ledger check`, and a gateway started on it must serve and verify
 * them all.
 */

/** Create loops and pay loops running at once. */
const CREATE_LOOPS = 8;
const PAY_LOOPS = 3;
/** Load before the backup starts, and after it ends until the kill. */
const LOAD_BEFORE_MS = 2_000;
const LOAD_AFTER_MS = 1_000;
const VERIFY_BATCH = 16;

interface Acknowledged {
  ref: string;
  at: number;
  paid: boolean;
}

for (const kind of DATABASE_KINDS) {
  describe(`a backup under a payment load on ${kind}`, () => {
    test(
      'holds every payment acknowledged before it began, after the gateway is killed and it is restored',
      { timeout: 120_000 },
      async (t) => {
        const cleanup = useCleanup(t);
        const testDb = freshDatabase(kind);
        cleanup(() => testDb.drop());
        cleanup(() => dropKeptAside(testDb));
        const database = await openMigratedDatabase(testDb.url);
        const merchant = await createMerchant(
          database.db,
          { name: 'Load Shop', email: 'owner@load.example', webhookUrl: null, feeBasisPoints: 300 },
          Date.now(),
        );
        await database.close();
        const key = merchant.test_secret_key;
        const folder = temporaryFolder('lipira-backup-load-');
        cleanup(async () => folder.remove());
        const env = {
          DATABASE_URL: testDb.url,
          SMTP_URL: '',
          OUTBOX_DIR: path.join(folder.dir, 'outbox'),
          SANDBOX_MOBILE_DELAY: '100ms',
          RATE_LIMIT_PER_SECOND: '1000000',
          RATE_LIMIT_BURST: '1000000',
        };
        const gateway = await startServe(env);
        cleanup(() => gateway.dispose());

        const acknowledged: Acknowledged[] = [];
        const unexpected: string[] = [];
        const load = { killed: false, stopped: false };
        const keepGoing = async (work: () => Promise<Acknowledged>) => {
          while (!load.stopped) {
            try {
              acknowledged.push(await work());
            } catch (error) {
              // Requests cut off by the kill fail; any other failure is a finding.
              if (!load.killed) unexpected.push(String(error));
            }
          }
        };
        const create = async () => {
          const body = currentBody();
          const created = await call(gateway.url, '/payment', { key, body });
          if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
          return { ref: String(body.tx_ref), at: Date.now(), paid: false };
        };
        const pay = async () => {
          const payment = await payByMobileMoney(gateway.url, key, TEST_NUMBERS.airtelSuccess);
          return { ref: payment.txRef, at: Date.now(), paid: true };
        };
        const loops = [
          ...Array.from({ length: CREATE_LOOPS }, () => keepGoing(create)),
          ...Array.from({ length: PAY_LOOPS }, () => keepGoing(pay)),
        ];

        await sleep(LOAD_BEFORE_MS);
        const backupBegan = Date.now();
        const file = path.join(folder.dir, 'mid-load.backup');
        const backup = await lipira(['backup', file], env);
        assert.equal(backup.code, 0, backup.stderr);
        const backupEnded = Date.now();
        await sleep(LOAD_AFTER_MS);
        load.killed = true;
        await gateway.crash();
        load.stopped = true;
        await Promise.all(loops);
        assert.deepEqual(unexpected, []);

        // On PostgreSQL the killed gateway's connections end as the server reads their sockets' close.
        let restored = await lipira(['restore', file, '--replace'], env);
        for (let tries = 0; tries < 50 && /a gateway is using/.test(restored.stderr); tries++) {
          await sleep(100);
          restored = await lipira(['restore', file, '--replace'], env);
        }
        assert.equal(restored.code, 0, restored.stderr);
        const ledger = await lipira(['ledger', 'check'], env);
        assert.equal(ledger.code, 0, ledger.stderr);

        const before = acknowledged.filter((payment) => payment.at < backupBegan);
        assert.ok(before.filter((payment) => payment.paid).length >= 3, 'payments were paid before the backup');
        assert.ok(before.length >= 50, `only ${before.length} payments before the backup`);
        const again = await startServe(env);
        cleanup(() => again.dispose());
        const missing: string[] = [];
        await inBatches(before, VERIFY_BATCH, async (payment) => {
          const verified = await call(again.url, `/verify-payment/${payment.ref}`, { key });
          const expected = payment.paid ? 'success' : 'pending';
          if (verified.status !== 200 || verified.body.data.status !== expected)
            missing.push(`${payment.ref}: ${verified.status} ${verified.body?.data?.status} (expected ${expected})`);
        });
        assert.deepEqual(missing, []);
        assert.equal(await again.stop(), 0);
        // The restored database is whole for this build's migrations.
        assert.match(restored.stdout, /all \d+ migrations applied; ledger check clean/);
        reportScenario(`backup-under-load-${kind}`, {
          acknowledgedBeforeBackup: before.length,
          paidBeforeBackup: before.filter((payment) => payment.paid).length,
          acknowledgedDuringAndAfter: acknowledged.length - before.length,
          backupMs: backupEnded - backupBegan,
          missing: missing.length,
        });
      },
    );
  });
}
