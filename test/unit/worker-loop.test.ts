import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import { startWorkerLoop } from '../../src/shared/worker-loop.ts';
import { freePort } from '../helpers/gateway.ts';

/** What node-postgres rejects with when nothing listens where the database should be. */
async function refusedConnection(): Promise<unknown> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/lipira` });
  return client.connect().then(
    () => assert.fail('something listens on a free port'),
    (error: unknown) => error,
  );
}

test('while the database is unavailable a worker backs off and logs once; it runs at its interval again once it is back', async (t) => {
  const refused = await refusedConnection();
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const rounds: number[] = [];
  const outage = { on: true };
  const loop = startWorkerLoop(
    'probe',
    10,
    async () => {
      rounds.push(Date.now());
      if (outage.on) throw refused;
    },
    log,
  );
  t.after(() => loop.stop());

  await sleep(600);
  const duringOutage = rounds.length;
  // 10 ms apart this would be ~60 rounds; doubling from 10 ms it is 6 (10, 20, 40, 80, 160, 320).
  assert.ok(duringOutage >= 3 && duringOutage <= 8, `${duringOutage} rounds in 600 ms of outage`);
  assert.deepEqual(
    lines.map((line) => line.msg),
    ['worker paused: the database is unavailable'],
  );
  assert.equal(lines[0]!.level, 40);

  outage.on = false;
  await sleep(1_000);
  const sinceBack = rounds.length - duringOutage;
  // The pending pause (at most 640 ms) ends, then rounds come every 10 ms (timers are coarse under load).
  assert.ok(sinceBack >= 10, `${sinceBack} rounds in the second after the outage`);
  assert.deepEqual(
    lines.map((line) => line.msg),
    ['worker paused: the database is unavailable', 'worker resumed: the database is back'],
  );
});

test('a round failing for another reason is logged as an error each time, with no backoff', async (t) => {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let rounds = 0;
  const loop = startWorkerLoop(
    'probe',
    10,
    async () => {
      rounds += 1;
      throw new TypeError('a bug');
    },
    log,
  );
  t.after(() => loop.stop());
  await sleep(300);
  await loop.stop();
  assert.ok(rounds >= 10, `${rounds} rounds in 300 ms`);
  assert.equal(lines.length, rounds);
  assert.ok(lines.every((line) => line.level === 50 && line.msg === 'worker round failed'));
});

test('a woken worker runs at once, or when the work it is told of is due, rather than at its interval', async (t) => {
  const rounds: number[] = [];
  const loop = startWorkerLoop(
    'probe',
    60_000,
    async () => {
      rounds.push(Date.now());
    },
    null,
  );
  t.after(() => loop.stop());

  const woken = Date.now();
  loop.wake();
  await sleep(100);
  assert.equal(rounds.length, 1, 'one round, at once');
  assert.ok(rounds[0]! - woken < 100);

  const dueAt = Date.now() + 300;
  loop.wake(dueAt);
  loop.wake(dueAt + 10_000);
  await sleep(150);
  assert.equal(rounds.length, 1, 'not before the work is due');
  await sleep(400);
  assert.equal(rounds.length, 2, 'when it is due, not at the one-minute interval');
  assert.ok(rounds[1]! >= dueAt);
});

test('a wake during a round starts another as soon as it ends; a stopped worker is not woken', async (t) => {
  let rounds = 0;
  let release = () => {};
  const loop = startWorkerLoop(
    'probe',
    60_000,
    async () => {
      rounds += 1;
      if (rounds === 1) await new Promise<void>((resolve) => (release = resolve));
    },
    null,
  );
  t.after(() => loop.stop());

  loop.wake();
  await sleep(50);
  assert.equal(rounds, 1);
  loop.wake();
  loop.wake();
  await sleep(50);
  assert.equal(rounds, 1, 'never two rounds at once');
  release();
  await sleep(50);
  assert.equal(rounds, 2, 'the wakes during the round make one more round');
  await loop.stop();
  loop.wake();
  await sleep(50);
  assert.equal(rounds, 2);
});

test('a round woken for work due at a time never starts before the clock reaches it, even when its timer fires early', async (t) => {
  const realNow = Date.now;
  let offsetMs = 0;
  Date.now = () => realNow() + offsetMs;
  t.after(() => {
    Date.now = realNow;
  });
  const roundsAt: number[] = [];
  const loop = startWorkerLoop('probe', 3_600_000, async () => void roundsAt.push(Date.now()), null);
  t.after(() => loop.stop());

  const dueAt = Date.now() + 30;
  loop.wake(dueAt);
  // The wall clock steps back 20 ms after the timer was set: it fires 30 ms later by the loop's
  // clock, when Date.now() says 10 ms are still to go.
  offsetMs = -20;
  await sleep(80);
  assert.equal(roundsAt.length, 1, 'the woken round ran once, not an hour later');
  assert.ok(roundsAt[0]! >= dueAt, `the round started at ${roundsAt[0]! - dueAt} ms from when the work was due`);
});
