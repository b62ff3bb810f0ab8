import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { openMigratedDatabase } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/merchant-service.ts';
import { inBatches } from '../helpers/batches.ts';
import { DATABASE_KINDS, freshDatabase } from '../helpers/databases.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { startServe } from '../helpers/serve-process.ts';
import { useCleanup } from '../helpers/cleanup.ts';

/**
 * Durability is not traded for speed: a `201` for `POST /payment` means the session is
 * committed. A real `lipira serve` under a create load is killed with SIGKILL while requests
 * are in flight; after a restart on the same database every session that was acknowledged
 * verifies, and each one that was cut off by the kill is either there whole or not at all.
 */

/** Concurrent create loops, each on a keep-alive connection of its own. */
const LOOPS = 32;
/** How long the load runs before the kill, at least. */
const LOAD_MS = 1_500;
/** How long it may run, at most, to reach `MIN_ACKNOWLEDGED` on a slow or busy machine. */
const MAX_LOAD_MS = 30_000;
/** Verify requests in flight at once after the restart. */
const VERIFY_BATCH = 64;
/** The least number of acknowledged creates for the load to count as one. */
const MIN_ACKNOWLEDGED = 200;

/** The connection errors a request cut off by the kill may end with. */
const CUT_OFF = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED']);

interface Outcome {
  /** tx_ref → amount, for every create answered 201. */
  acknowledged: Map<string, number>;
  /** tx_ref → amount, for every create whose connection failed after the kill was sent. */
  cutOff: Map<string, number>;
  /** Anything else: answers other than 201, or errors before the kill. Each one fails the test. */
  unexpected: string[];
}

for (const kind of DATABASE_KINDS) {
  describe(`sessions survive a crash under a create load on ${kind}`, () => {
    test('every session that got a 201 before SIGKILL verifies after a restart', { timeout: 180_000 }, async (t) => {
      const cleanup = useCleanup(t);
      const testDb = freshDatabase(kind);
      cleanup(() => testDb.drop());
      const database = await openMigratedDatabase(testDb.url);
      cleanup(() => database.close());
      const merchant = await createMerchant(
        database.db,
        {
          name: 'Load Shop',
          email: 'owner@load.example',
          webhookUrl: null,
          feeBasisPoints: 300,
        },
        Date.now(),
      );
      // No webhooks, and an hour between worker rounds: the only writes are the creates themselves.
      const env = {
        DATABASE_URL: testDb.url,
        SMTP_URL: '',
        WORKER_INTERVAL: '1h',
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
      };

      const first = await startServe(env);
      cleanup(() => first.dispose());
      const agent = new http.Agent({ keepAlive: true, maxSockets: LOOPS });
      cleanup(async () => agent.destroy());

      const outcome: Outcome = { acknowledged: new Map(), cutOff: new Map(), unexpected: [] };
      const load = { killing: false, stopped: false };
      let sequence = 0;
      const loop = async () => {
        while (!load.stopped) {
          sequence += 1;
          // A distinct amount per session, so that "the same amount" is checked for each.
          const body = currentBody({
            tx_ref: `load-${process.pid}-${Date.now()}-${sequence}`,
            amount: 1_000 + sequence,
          });
          const txRef = String(body.tx_ref);
          const amount = Number(body.amount);
          const result = await post(agent, `${first.url}/payment`, merchant.test_secret_key, body);
          if ('status' in result) {
            if (result.status === 201) outcome.acknowledged.set(txRef, amount);
            else outcome.unexpected.push(`${txRef}: answered ${result.status}: ${result.text}`);
          } else if (load.killing && result.code === 'ECONNREFUSED') {
            // Sent after the process had gone: it never reached a server, so there is nothing to check.
          } else if (load.killing && CUT_OFF.has(result.code)) {
            outcome.cutOff.set(txRef, amount);
          } else {
            outcome.unexpected.push(
              `${txRef}: ${load.killing ? 'after' : 'before'} the kill: ${result.code}: ${result.message}`,
            );
          }
        }
      };
      const loops = Array.from({ length: LOOPS }, loop);

      const started = Date.now();
      while (
        Date.now() - started < MAX_LOAD_MS &&
        (Date.now() - started < LOAD_MS || outcome.acknowledged.size < MIN_ACKNOWLEDGED) &&
        outcome.unexpected.length === 0
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const loadMs = Date.now() - started;
      // The loops go on sending until the process has gone. Stopping them first left a window with
      // nothing in flight: group commit answers every pending create at once, and a kill landing
      // right after such a burst found no request to cut off.
      load.killing = true;
      await first.crash();
      load.stopped = true;
      await Promise.all(loops);
      agent.destroy();

      assert.deepEqual(
        outcome.unexpected.slice(0, 10),
        [],
        `${outcome.unexpected.length} creates failed other than by the kill\n${first.output}`,
      );
      assert.ok(
        outcome.acknowledged.size >= MIN_ACKNOWLEDGED,
        `only ${outcome.acknowledged.size} creates were acknowledged: not a load`,
      );
      assert.ok(outcome.cutOff.size > 0, 'no request was in flight at the kill: the crash was not exercised');

      const second = await startServe(env);
      cleanup(() => second.dispose());
      const lost: string[] = [];
      await inBatches([...outcome.acknowledged], VERIFY_BATCH, async ([txRef, amount]) => {
        const verified = await call(second.url, `/verify-payment/${encodeURIComponent(txRef)}`, {
          key: merchant.test_secret_key,
        });
        if (verified.status !== 200) lost.push(`${txRef}: ${verified.status} ${verified.text}`);
        else if (
          verified.body.data.status !== 'pending' ||
          verified.body.data.amount !== amount ||
          verified.body.data.tx_ref !== txRef
        ) {
          lost.push(`${txRef}: came back as ${verified.text}, expected a pending session of ${amount}`);
        }
      });
      assert.deepEqual(
        lost.slice(0, 10),
        [],
        `${lost.length} of ${outcome.acknowledged.size} acknowledged sessions do not verify after the restart`,
      );

      // The kill may have come before or after any of these committed, but never halfway.
      let committedCutOff = 0;
      const broken: string[] = [];
      await inBatches([...outcome.cutOff], VERIFY_BATCH, async ([txRef, amount]) => {
        const verified = await call(second.url, `/verify-payment/${encodeURIComponent(txRef)}`, {
          key: merchant.test_secret_key,
        });
        if (verified.status === 404) return;
        if (verified.status === 200 && verified.body.data.status === 'pending' && verified.body.data.amount === amount)
          committedCutOff += 1;
        else broken.push(`${txRef}: ${verified.status} ${verified.text}`);
      });
      assert.deepEqual(broken, [], 'a session cut off by the kill is either whole or absent');

      t.diagnostic(
        `${kind}: load ${loadMs} ms, acknowledged ${outcome.acknowledged.size}, failed at kill ${outcome.cutOff.size} (${committedCutOff} of them committed), ` +
          `all ${outcome.acknowledged.size} acknowledged verified after restart`,
      );
      assert.equal(await second.stop(), 0, 'SIGTERM stops it cleanly');
    });
  });
}

type PostResult = { status: number; text: string } | { code: string; message: string };

/** `POST`s `body` as JSON through `agent`; a connection failure resolves with its error code rather than throwing. */
function post(agent: http.Agent, url: string, key: string, body: unknown): Promise<PostResult> {
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        // A response cut off halfway is no acknowledgement: the request failed.
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ code: error.code ?? 'ECONNRESET', message: error.message }),
        );
        response.on('aborted', () => resolve({ code: 'ECONNRESET', message: 'response aborted' }));
      },
    );
    // "socket hang up" (the connection closed before any answer) carries ECONNRESET too.
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ code: error.code ?? 'UNKNOWN', message: error.message }),
    );
    request.end(payload);
  });
}
