import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/db/database.ts';
import { checkLedger } from '../../src/ledger/ledger-service.ts';
import { inBatches } from '../helpers/batches.ts';
import { lipira } from '../helpers/cli.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { currentBody, uniqueRef } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';
import { payByMobileMoney } from '../helpers/payments.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startServe } from '../helpers/serve-process.ts';
import { reportScenario } from './report.ts';
import { startTcpProxy, type Cut } from './tcp-proxy.ts';

/**
 * PostgreSQL goes away for a few seconds under load (issue 8). A real `lipira serve` reaches
 * its database through a TCP proxy, which cuts the link three ways in turn (reset and refuse,
 * reset and black-hole, silent freeze) while clients create, verify and pay sessions. Every
 * answer must be a success or the 503 of docs/integrate/api-reference.md#errors; none may take longer than REQUEST_BOUND_MS;
 * the same process serves normally again soon after each restore; and afterwards no record is
 * partial, no acknowledged create is missing, every paid session's webhook arrives and the
 * ledger balances. The database timeouts are the defaults (5 s to connect, 10 s per statement).
 */

const CUTS: Cut[] = ['refuse', 'blackhole', 'freeze'];
/** How long the link stays cut each time. */
const OUTAGE_MS = 4_000;
/** Normal service before each cut. */
const STEADY_MS = 1_500;
/** Longer than any answer may take: a request still waiting then counts as a hang. */
const REQUEST_BOUND_MS = 15_000;
/** How soon after a restore a new create must succeed again. */
const RECOVERY_BOUND_MS = 15_000;
const CREATE_LOOPS = 6;
const VERIFY_LOOPS = 2;
const PAYMENT_LOOPS = 3;
/** Checks in flight at once after the outage. */
const CHECK_BATCH = 16;
/** A client told 503 waits a little before its next request, as Retry-After asks. */
const PAUSE_AFTER_FAILURE_MS = 100;

const ENVELOPE_503 = { status: 'failed', message: 'Service temporarily unavailable.', data: null };

interface Create {
  body: Record<string, unknown>;
  started: number;
  /** The answer's status; 0 when no answer came. */
  status: number;
}

/** What the clients saw, counted by a wrapper around `fetch` that every request goes through. */
interface Traffic {
  requests: number;
  successes: number;
  /** The longest any answer took. */
  slowestMs: number;
  /** Start times of requests answered 503 in the envelope (or, for the checkout's pages, as a page). */
  unavailable: number[];
  /** Of those, the checkout pages answered with the HTML page. */
  unavailablePages: number;
  /** Requests with no answer within REQUEST_BOUND_MS. */
  timeouts: string[];
  /** Anything else: other statuses, a 503 without the envelope, connection errors. */
  problems: string[];
}

const databaseUrl = process.env.TEST_DATABASE_URL;

test(
  'a PostgreSQL outage under load answers 503, never hangs, loses nothing, and the server recovers by itself',
  {
    skip: databaseUrl ? false : 'TEST_DATABASE_URL is not set: the database outage scenario needs PostgreSQL',
    timeout: 150_000,
  },
  async (t) => {
    const load = { stopped: false };
    const cleanups: Array<() => Promise<unknown>> = [];
    t.after(async () => {
      load.stopped = true; // a failed assertion must not leave the client loops running
      for (const step of cleanups.reverse()) await step().catch(() => undefined);
    });

    const testDb = freshDatabase('postgres');
    cleanups.push(() => testDb.drop());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // The CLI creates and migrates the database, directly; the server goes through the proxy.
    const created = await lipira(
      [
        'merchant',
        'create',
        '--name',
        'Outage Shop',
        '--email',
        'owner@outage.example',
        '--webhook-url',
        receiver.url,
        '--json',
      ],
      { DATABASE_URL: testDb.url },
    );
    assert.equal(created.code, 0, created.stderr);
    const key: string = JSON.parse(created.stdout).test_secret_key;

    const direct = new URL(testDb.url);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    cleanups.push(() => proxy.close());
    const proxied = new URL(testDb.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outage-'));
    cleanups.push(async () => fs.rmSync(outbox, { recursive: true, force: true }));
    const serve = await startServe({
      DATABASE_URL: proxied.toString(),
      SMTP_URL: '',
      OUTBOX_DIR: outbox,
      SANDBOX_MOBILE_DELAY: '1s',
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s',
      // A claim that committed while the link froze, its answer lost, holds its deliveries until the
      // lease (twice this plus 10 s) lapses: with the default 15 s that is 40 s, longer than the wait
      // for webhooks below (run 5 of ten at a960a1c missed one so). The webhook was late, not lost.
      WEBHOOK_TIMEOUT: '3s',
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
      RATE_LIMIT_ADDRESS_BURST: '1000000',
    });
    cleanups.push(() => serve.dispose());

    const traffic: Traffic = {
      requests: 0,
      successes: 0,
      slowestMs: 0,
      unavailable: [],
      unavailablePages: 0,
      timeouts: [],
      problems: [],
    };
    const realFetch = globalThis.fetch;
    globalThis.fetch = recordingFetch(realFetch, traffic);
    cleanups.push(async () => (globalThis.fetch = realFetch));

    const creates = new Map<string, Create>();
    /** The tx_refs of creates answered 201, for the verify loops. */
    const acknowledged: string[] = [];
    const paymentRefs: string[] = [];
    /** /readyz probes, one after another: when each was sent and answered, and how. */
    const readiness: Array<{ at: number; end: number; status: number }> = [];
    const pause = () => sleep(PAUSE_AFTER_FAILURE_MS);

    const createLoop = async () => {
      while (!load.stopped) {
        const body = currentBody({ tx_ref: uniqueRef('outage'), amount: 1_000 + creates.size });
        const entry: Create = { body, started: Date.now(), status: 0 };
        creates.set(String(body.tx_ref), entry);
        entry.status = (await call(serve.url, '/payment', { key, body }).catch(() => null))?.status ?? 0;
        if (entry.status === 201) acknowledged.push(String(body.tx_ref));
        else await pause();
      }
    };
    const verifyLoop = async () => {
      while (!load.stopped) {
        const txRef = acknowledged[Math.floor(Math.random() * acknowledged.length)];
        if (!txRef) {
          await pause();
          continue;
        }
        const verified = await call(serve.url, `/verify-payment/${txRef}`, { key }).catch(() => null);
        if (verified?.status === 200 && verified.body.data.tx_ref !== txRef)
          traffic.problems.push(`verify ${txRef} answered for ${verified.body.data.tx_ref}`);
        if (verified?.status !== 200) await pause();
      }
    };
    const paymentLoop = async () => {
      while (!load.stopped) {
        const txRef = uniqueRef('paid');
        paymentRefs.push(txRef);
        // A payment cut off by the outage throws; what it was answered is in `traffic`.
        await payByMobileMoney(serve.url, key, TEST_NUMBERS.airtelSuccess, { tx_ref: txRef }).catch(pause);
      }
    };
    const readinessLoop = async () => {
      while (!load.stopped) {
        const at = Date.now();
        const answer = await fetch(`${serve.url}/readyz`).catch(() => null);
        await answer?.arrayBuffer();
        readiness.push({ at, end: Date.now(), status: answer?.status ?? 0 });
        await sleep(200);
      }
    };
    const loops = [
      ...Array.from({ length: CREATE_LOOPS }, createLoop),
      ...Array.from({ length: VERIFY_LOOPS }, verifyLoop),
      ...Array.from({ length: PAYMENT_LOOPS }, paymentLoop),
      readinessLoop(),
    ];

    // A customer who opens the payment page while the database is refused gets a page saying so.
    const pageUrl: string = (
      await call(serve.url, '/payment', { key, body: currentBody({ tx_ref: uniqueRef('page') }) })
    ).body.data.checkout_url;
    const pagesDuringRefusal: Array<{ status: number; type: string | null; text: string }> = [];

    const outages: Array<{ cut: Cut; outageMs: number; recoveryMs: number; unavailable: number; readyzDown: boolean }> =
      [];
    for (const how of CUTS) {
      await sleep(STEADY_MS);
      const cutAt = Date.now();
      await proxy.cut(how);
      if (how === 'refuse') {
        const page = await realFetch(pageUrl);
        pagesDuringRefusal.push({
          status: page.status,
          type: page.headers.get('content-type'),
          text: await page.text(),
        });
      }
      await sleep(OUTAGE_MS);
      await proxy.restore();
      const restoredAt = Date.now();
      const createdAgain = () =>
        [...creates.values()].some((entry) => entry.started >= restoredAt && entry.status === 201);
      const readyAgain = () => readiness.some((probe) => probe.at >= restoredAt && probe.status === 200);
      while (!(createdAgain() && readyAgain()) && Date.now() - restoredAt < RECOVERY_BOUND_MS) await sleep(25);
      const recoveryMs = Date.now() - restoredAt;
      outages.push({
        cut: how,
        outageMs: restoredAt - cutAt,
        recoveryMs,
        unavailable: traffic.unavailable.filter((at) => at >= cutAt && at < restoredAt + recoveryMs).length,
        // A probe sent just before the cut may be the one that finds the link silent.
        readyzDown: readiness.some((probe) => probe.end > cutAt && probe.at < restoredAt && probe.status === 503),
      });
      assert.ok(
        recoveryMs < RECOVERY_BOUND_MS,
        `after the ${how} outage no create succeeded and /readyz did not answer 200 within ${RECOVERY_BOUND_MS} ms\n${serve.output.slice(-3000)}`,
      );
    }
    await sleep(STEADY_MS);
    load.stopped = true;
    await Promise.all(loops);
    // What follows checks the outcome; its answers (404 for creates that never happened) are not load.
    globalThis.fetch = realFetch;

    for (const page of pagesDuringRefusal) {
      assert.equal(page.status, 503, page.text.slice(0, 300));
      assert.match(page.type ?? '', /^text\/html/);
      assert.match(page.text, /Payments are paused for a moment/);
    }
    assert.equal(pagesDuringRefusal.length, 1, 'the page was opened during the refusal');
    for (const outage of outages) {
      assert.ok(outage.unavailable > 0, `the ${outage.cut} outage answered no 503: it was not exercised`);
      assert.ok(outage.readyzDown, `/readyz never answered 503 during the ${outage.cut} outage`);
    }
    assert.deepEqual(
      traffic.timeouts.slice(0, 10),
      [],
      `${traffic.timeouts.length} requests hung for ${REQUEST_BOUND_MS} ms`,
    );
    assert.deepEqual(
      traffic.problems.slice(0, 10),
      [],
      `${traffic.problems.length} answers were neither a success nor the 503 envelope`,
    );
    process.kill(serve.pid, 0); // throws if the server died: it recovered with no restart
    assert.equal((await call(serve.url, '/readyz')).status, 200, 'ready after the outages');

    // Every acknowledged create is there, whole; every one that was not is absent or whole, and
    // sending it again now succeeds (a repeat of a committed one is answered as the first was).
    const missing: string[] = [];
    let committedDespite503 = 0;
    await inBatches([...creates], CHECK_BATCH, async ([txRef, entry]) => {
      const verified = await call(serve.url, `/verify-payment/${txRef}`, { key });
      const whole =
        verified.status === 200 &&
        verified.body.data.amount === entry.body.amount &&
        verified.body.data.logs.length > 0;
      if (entry.status === 201) {
        if (!whole)
          missing.push(`${txRef} was acknowledged but verifies as ${verified.status} ${verified.text.slice(0, 200)}`);
        return;
      }
      if (!whole && verified.status !== 404)
        missing.push(
          `${txRef} (answered ${entry.status}) is partial: ${verified.status} ${verified.text.slice(0, 200)}`,
        );
      if (whole) committedDespite503 += 1;
      const again = await call(serve.url, '/payment', { key, body: entry.body });
      if (again.status !== 201)
        missing.push(`${txRef} sent again answered ${again.status} ${again.text.slice(0, 200)}`);
    });
    assert.deepEqual(
      missing.slice(0, 10),
      [],
      `${missing.length} creates are missing, partial or cannot be sent again`,
    );

    // Payments whose charge was still pending settle now; each paid session's webhook arrives.
    await sleep(2_000);
    const paid: string[] = [];
    await inBatches(paymentRefs, CHECK_BATCH, async (txRef) => {
      const verified = await call(serve.url, `/verify-payment/${txRef}`, { key });
      if (verified.status === 200 && verified.body.data.status === 'success') paid.push(txRef);
    });
    assert.ok(paid.length > 0, 'no checkout payment went through: the payment load was not exercised');
    const undelivered = () =>
      paid.filter(
        (txRef) =>
          !receiver.received.some(
            (hook) => JSON.parse(hook.body).tx_ref === txRef && JSON.parse(hook.body).status === 'success',
          ),
      );
    for (let waited = 0; undelivered().length > 0 && waited < 20_000; waited += 100) await sleep(100);
    assert.deepEqual(undelivered(), [], 'every paid session had its webhook delivered');

    const database = await openDatabase(testDb.url);
    cleanups.push(() => database.close());
    assert.deepEqual(await checkLedger(database.db), [], 'the ledger balances');

    // Four workers: each logs the start of an outage once, not each round that fails.
    const pausedLogs = serve.output.split('\n').filter((line) => line.includes('worker paused')).length;
    assert.ok(
      pausedLogs > 0 && pausedLogs <= 4 * CUTS.length,
      `workers logged ${pausedLogs} pauses for ${CUTS.length} outages`,
    );

    const figures = {
      requests: traffic.requests,
      successes: traffic.successes,
      unavailable503: traffic.unavailable.length,
      unavailablePages503: traffic.unavailablePages,
      otherFailures: traffic.problems.length,
      timeouts: traffic.timeouts.length,
      slowestAnswerMs: traffic.slowestMs,
      creates: creates.size,
      createsAcknowledged: acknowledged.length,
      createsCommittedDespite503: committedDespite503,
      paymentsPaid: paid.length,
      webhooksReceived: receiver.received.length,
      workerPauseLogs: pausedLogs,
      outages,
      samePid: serve.pid,
    };
    reportScenario('db-outage', figures);
  },
);

/**
 * `fetch` bounded by REQUEST_BOUND_MS (body included) and counted in `traffic`: a success is
 * any 2xx or 3xx; a 503 must carry Retry-After and the envelope (docs/integrate/api-reference.md#envelope), or be a page for the
 * checkout's pages.
 */
function recordingFetch(realFetch: typeof fetch, traffic: Traffic): typeof fetch {
  return async (input, init = {}) => {
    const started = Date.now();
    const bound = AbortSignal.timeout(REQUEST_BOUND_MS);
    const label = `${init.method ?? 'GET'} ${new URL(String(input)).pathname}`;
    traffic.requests += 1;
    try {
      const response = await realFetch(input, {
        ...init,
        signal: init.signal ? AbortSignal.any([init.signal, bound]) : bound,
      });
      const text = await response.clone().text();
      traffic.slowestMs = Math.max(traffic.slowestMs, Date.now() - started);
      if (response.status < 400) traffic.successes += 1;
      else if (
        response.status === 503 &&
        !isPageRoute(label) &&
        text === JSON.stringify(ENVELOPE_503) &&
        response.headers.get('retry-after') === '1'
      )
        traffic.unavailable.push(started);
      else if (response.status === 503 && isPageRoute(label) && isUnavailablePage(response, text)) {
        traffic.unavailable.push(started);
        traffic.unavailablePages += 1;
      } else traffic.problems.push(`${label} answered ${response.status} ${text.slice(0, 200)}`);
      return response;
    } catch (error) {
      if (bound.aborted) traffic.timeouts.push(label);
      else traffic.problems.push(`${label}: ${String(error)}`);
      throw error;
    }
  };
}

/** The hosted checkout's pages and forms (not the JSON status its waiting page polls). */
function isPageRoute(label: string): boolean {
  return / \/checkout\//.test(label) && !label.endsWith('/status');
}

/** A customer's browser gets a page, not JSON, when the checkout cannot answer. */
function isUnavailablePage(response: Response, text: string): boolean {
  return (
    (response.headers.get('content-type') ?? '').startsWith('text/html') &&
    response.headers.get('retry-after') === '1' &&
    text.includes('Payments are paused for a moment')
  );
}
