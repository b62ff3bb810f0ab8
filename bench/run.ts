// `npm run bench`: loads bare node:http, bare Fastify and the gateway with autocannon and reports
// throughput, latency and server cost side by side, so the gateway's overhead is read against
// baselines; then how verify holds up as sessions pile up, how fast webhooks go out, and the
// gateway's memory at the end, each checked against the performance targets. `--soak` runs whole
// payments at a constant arrival rate instead (bench/soak/).
import { fileURLToPath } from 'node:url';
import { openBenchDb, type BenchDb } from './bench-db.ts';
import { Cleanup } from './cleanup.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { measure, measureInRounds, type Measurement, type Scenario } from './measure.ts';
import { BenchUsageError, parseBenchArgs, USAGE, type BenchOptions } from './options.ts';
import { rssMegabytes } from './proc-stats.ts';
import { buildReport, formatReport, saveReport } from './report.ts';
import {
  CREATE,
  CREATE_FLOOR,
  grownVerify,
  mixedRefundsAndVerifies,
  paymentsList,
  paymentsSearch,
  scenarios,
  VERIFY,
  VERIFY_BESIDE_MIXED,
  type Seeded,
} from './scenarios.ts';
import { assertSearchFinds, signedInDashboardCookie } from './dashboard.ts';
import { formatTable } from './table.ts';
import {
  eventStreamTargets,
  PAYMENT_TO_WEBHOOK_RATE,
  paymentsListTarget,
  paymentsSearchTarget,
  paymentToWebhookTargets,
  TARGET_COLUMNS,
} from './targets.ts';
import { describePaymentToWebhook, measurePaymentToWebhook } from './payment-to-webhook.ts';
import { describeEventStream, EVENT_STREAM_LISTENERS, EVENT_STREAM_RATE, measureEventStream } from './event-stream.ts';
import {
  fillSessions,
  seedBankPayouts,
  seedBankTransfers,
  seedCardCharges,
  seedCharges,
  seedRefunds,
  seedSessions,
  sessionOwnerFrom,
  waitForSettledCharges,
} from './seed.ts';
import { pinBenchApart } from './cpu-pinning.ts';
import { startServer, type ServerProcess } from './servers.ts';
import { measureWebhookDelivery } from './webhooks.ts';
import { runSoak } from './soak/run-soak.ts';

/** One seeded charge in this many gets a refund for the refund read row. */
const SEEDED_PER_REFUND = 4;
/** Ten pages of the payouts list. */
const BANK_PAYOUTS = 200;
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('results/', import.meta.url));

async function bench(options: BenchOptions, startedAt: Date, cleanup: Cleanup): Promise<void> {
  const baseline = (name: string, file: string, env: Record<string, string> = {}) =>
    startServer({ name, args: ['--import', 'tsx', `bench/${file}`], cwd: REPO_ROOT, env, readyPath: '/' }, cleanup);
  // Started side by side, since each takes a second or two to boot. All must have settled before a
  // failure is thrown: one still starting would register its cleanup after teardown had run.
  const starting = [
    baseline('node:http baseline', 'baseline-http.ts'),
    baseline('fastify baseline', 'baseline-fastify.ts'),
    startGateway(REPO_ROOT, options.db, startedAt, cleanup),
  ] as const;
  await Promise.allSettled(starting);
  const [nodeHttp, fastify, gateway] = await Promise.all(starting);
  // On the gateway's database, once the gateway has made it; its links are the gateway's.
  const floors = await baseline('floors', 'baseline-floors.ts', {
    DATABASE_URL: gateway.databaseUrl,
    MERCHANT_ID: gateway.merchantId,
    PUBLIC_BASE_URL: gateway.url,
  });
  const db = await openBenchDb(gateway.databaseUrl);
  cleanup.add(() => db.close());

  progress(
    `seeding ${options.seedCount} direct charges, ${options.seedCount} bank transfers, ${options.seedCount} card charges and ${options.seedCount} checkout sessions over HTTP`,
  );
  const chargeIds = await seedCharges(gateway, options.seedCount);
  const transferIds = await seedBankTransfers(gateway, options.seedCount);
  const cardChargeIds = await seedCardCharges(gateway, options.seedCount);
  const checkouts = await seedSessions(gateway, options.seedCount);
  const owner = await sessionOwnerFrom(db, gateway.merchantId, checkouts[0]!.txRef);
  progress(`bulk-loading sessions up to ${options.smallSessions.toLocaleString('en-US')} stored`);
  const sessions = await fillSessions(db, owner, options.seedCount, options.smallSessions);
  await waitForSettledCharges(db);
  progress(`seeding ${options.seedCount / SEEDED_PER_REFUND} refunds and ${BANK_PAYOUTS} bank payouts over HTTP`);
  const refundIds = await seedRefunds(gateway, chargeIds.slice(0, options.seedCount / SEEDED_PER_REFUND));
  const payoutPages = await seedBankPayouts(gateway, BANK_PAYOUTS);
  await waitForSettledCharges(db);
  const seeded: Seeded = { sessions, checkouts, chargeIds, transferIds, cardChargeIds, refundIds, payoutPages };

  const batch = scenarios(nodeHttp, fastify, floors, gateway, seeded);
  const creates = batch.filter((scenario) => scenario.name === CREATE || scenario.name === CREATE_FLOOR);
  const reads = batch.filter((scenario) => !creates.includes(scenario));
  // The growth target compares the first gateway row with one run after every other route. Warmed
  // up on verify alone, the first row found the JIT compiler's code specialised for verify, which
  // every later route then made more general: verify measured ~8 % slower after them at the same
  // size. So every read route is warmed up first, and both rows find the code in the same state;
  // the floors' server too, which otherwise met its first requests (and, on PostgreSQL, opened its
  // connections) in its measured rows. Creating adds sessions: it is warmed up after the reads.
  const warmed = new Set<ServerProcess>([gateway, floors]);
  await warmUp(
    reads.filter((scenario) => warmed.has(scenario.server)),
    options,
  );

  // Three phases, each measured in rounds beside bare node:http: the reads while exactly
  // `smallSessions` are stored; then creating, which adds sessions; then verify again once
  // `largeSessions` are stored. Each row's ratio is to the bare node:http of its own phase.
  const bareNodeHttp = batch[0]!;
  const measurements = await measurePhase(reads, options);
  await warmUp(creates, options);
  const [, ...created] = await measurePhase([bareNodeHttp, ...creates], options);
  measurements.push(...created);
  // Beside verify alone, in turns within one phase: the two rows meet the same machine.
  const verifyAlone = { ...batch.find((scenario) => scenario.name === VERIFY)!, name: VERIFY_BESIDE_MIXED };
  const [, alone, mixed] = await measurePhase(
    [bareNodeHttp, verifyAlone, mixedRefundsAndVerifies(gateway, seeded)],
    options,
  );
  measurements.push(alone!, mixed!);

  progress(`bulk-loading sessions up to ${options.largeSessions.toLocaleString('en-US')} stored`);
  const grownSessions = await fillSessions(db, owner, seeded.sessions, options.largeSessions);
  const [, grown] = await measurePhase(
    [bareNodeHttp, grownVerify(gateway, options.largeSessions, grownSessions)],
    options,
  );
  const [, listed, searched] = await measurePhase(
    [bareNodeHttp, ...(await dashboardRowsAtSize(gateway, db, options, grownSessions))],
    options,
  );

  progress(`webhook delivery of ${options.webhookEvents.toLocaleString('en-US')} queued events`);
  const webhooks = await measureWebhookDelivery(gateway, db, checkouts, options.webhookEvents, cleanup);

  const finalServerRssMb = rssMegabytes(gateway.pid);
  progress(
    `payments at ${PAYMENT_TO_WEBHOOK_RATE}/s for ${options.durationSeconds} s on a gateway of their own, timing each from its commit to its webhook`,
  );
  const paymentToWebhook = await measurePaymentToWebhook(
    REPO_ROOT,
    options.db,
    startedAt,
    cleanup,
    PAYMENT_TO_WEBHOOK_RATE,
    options.durationSeconds,
  );

  const report = buildReport(
    {
      measurements,
      grown: grown!,
      paymentsList: listed!,
      paymentsSearch: searched!,
      webhooks,
      finalServerRssMb,
      paymentToWebhook,
    },
    options,
    startedAt,
  );
  process.stdout.write(formatReport(report));
  process.stdout.write(`\nSaved ${await saveReport(report, RESULTS_DIR)}\n`);
}

/**
 * The dashboard's rows, once the sessions stored have grown to `largeSessions` (the bulk-loaded
 * ones are `seed-0` … `seed-<sessions-1>`): a third of them are marked paid, a viewer signs in,
 * the search is checked to find what it should, and both rows are warmed up like the others.
 */
async function dashboardRowsAtSize(
  gateway: Gateway,
  db: BenchDb,
  options: BenchOptions,
  sessions: number,
): Promise<[list: Scenario, search: Scenario]> {
  progress('marking a third of the stored sessions successful, for the payments list filtered by status');
  await db.markThirdOfSessionsPaid();
  const cookie = await signedInDashboardCookie(gateway, REPO_ROOT);
  await assertSearchFinds(gateway, cookie, sessions);
  const rows: [Scenario, Scenario] = [
    paymentsList(gateway, cookie, options.largeSessions),
    paymentsSearch(gateway, cookie, options.largeSessions, sessions),
  ];
  await warmUp(rows, options);
  return rows;
}

/**
 * `--only payments-list`: the dashboard's two rows, the list and its search, in turns on a
 * gateway seeded for them (one session over HTTP to copy, direct charges over HTTP, sessions
 * bulk-loaded to `largeSessions`), with their targets.
 */
async function benchPaymentsList(options: BenchOptions, startedAt: Date, cleanup: Cleanup): Promise<void> {
  const gateway = await startGateway(REPO_ROOT, options.db, startedAt, cleanup);
  const db = await openBenchDb(gateway.databaseUrl);
  cleanup.add(() => db.close());
  progress(`seeding ${options.seedCount} direct charges and a checkout session over HTTP`);
  await seedCharges(gateway, options.seedCount);
  const owner = await sessionOwnerFrom(db, gateway.merchantId, (await seedSessions(gateway, 1))[0]!.txRef);
  // Settled first: the settler's writes would otherwise queue behind the load's batches, which
  // hold the write lock for seconds each now that every row also goes into the search index.
  await waitForSettledCharges(db);
  progress(`bulk-loading sessions up to ${options.largeSessions.toLocaleString('en-US')} stored`);
  const sessions = await fillSessions(db, owner, 1, options.largeSessions);
  const rows = await measureInRounds(
    await dashboardRowsAtSize(gateway, db, options, sessions),
    options,
    (scenario, round) => progress(`${scenario.name} (round ${round + 1} of ${options.rounds})`),
  );
  for (const { scenario, requestsPerSecond, latencyP50Ms, latencyP99Ms, non2xx, errors } of rows)
    process.stdout.write(
      `${scenario}: ${requestsPerSecond.toFixed(0)} req/s, p50 ${latencyP50Ms.toFixed(1)} ms, p99 ${latencyP99Ms.toFixed(1)} ms, ${non2xx} non-2xx, ${errors} errors\n`,
    );
  const targets = [paymentsListTarget(rows[0]!), paymentsSearchTarget(rows[1]!)];
  process.stdout.write(`${formatTable(TARGET_COLUMNS, targets).join('\n')}\n`);
}

/** `--only payment-to-webhook`: payments at a constant rate on a gateway of their own, and how soon each webhook arrives. */
async function benchPaymentToWebhook(options: BenchOptions, startedAt: Date, cleanup: Cleanup): Promise<void> {
  progress(
    `payments at ${PAYMENT_TO_WEBHOOK_RATE}/s for ${options.durationSeconds} s, timing each from its commit to its webhook`,
  );
  const result = await measurePaymentToWebhook(
    REPO_ROOT,
    options.db,
    startedAt,
    cleanup,
    PAYMENT_TO_WEBHOOK_RATE,
    options.durationSeconds,
  );
  process.stdout.write(`${describePaymentToWebhook(result)}\n`);
  process.stdout.write(`${formatTable(TARGET_COLUMNS, paymentToWebhookTargets(result)).join('\n')}\n`);
}

/** `--only event-stream`: idle listeners' memory, how soon each event reaches a listener beside them, and the fan-out to all. */
async function benchEventStream(options: BenchOptions, startedAt: Date, cleanup: Cleanup): Promise<void> {
  progress(
    `${EVENT_STREAM_LISTENERS} idle listeners and one receiving, then ${EVENT_STREAM_LISTENERS} receiving, each with payments at ${EVENT_STREAM_RATE}/s for ${options.durationSeconds} s`,
  );
  const result = await measureEventStream(REPO_ROOT, options.db, startedAt, cleanup, options.durationSeconds);
  process.stdout.write(`${describeEventStream(result)}\n`);
  process.stdout.write(`${formatTable(TARGET_COLUMNS, eventStreamTargets(result)).join('\n')}\n`);
}

/** An unrecorded run of each scenario: no row should pay for the JIT compiler's warm-up. */
async function warmUp(scenarios: Scenario[], options: BenchOptions): Promise<void> {
  for (const scenario of scenarios) {
    progress(`warming up: ${scenario.name} (${options.warmUpSeconds} s, not recorded)`);
    await measure(scenario, { connections: options.connections, durationSeconds: options.warmUpSeconds });
  }
}

/** The phase's rows, bare node:http's first, each of the others carrying that row's rate as its baseline. */
async function measurePhase(scenarios: Scenario[], options: BenchOptions): Promise<Measurement[]> {
  const slice = options.durationSeconds / options.rounds;
  const [bare, ...rows] = await measureInRounds(scenarios, options, (scenario, round) =>
    progress(`${scenario.name} (${slice} s${options.rounds > 1 ? `, round ${round + 1} of ${options.rounds}` : ''})`),
  );
  return [bare!, ...rows.map((row) => ({ ...row, bareRequestsPerSecond: bare!.requestsPerSecond }))];
}

/** Progress goes to stderr, keeping stdout to the table; the clock shows where a run's time goes. */
function progress(message: string): void {
  process.stderr.write(`bench: [${(performance.now() / 1000).toFixed(1)} s] ${message}\n`);
}

async function main(argv: string[]): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`bench: ${error.message} (${USAGE})\n`);
    return 2;
  }
  if (options.pin) process.stderr.write(`bench: pinned: ${pinBenchApart()}\n`);
  const cleanup = new Cleanup();
  // Ctrl-C must not leave servers running or a benchmark database behind.
  process.once('SIGINT', () => void cleanup.run().finally(() => process.exit(130)));
  try {
    if (options.soak) {
      const valid = await runSoak({
        repoRoot: REPO_ROOT,
        resultsDir: RESULTS_DIR,
        db: options.db,
        soak: options.soak,
        startedAt: new Date(),
        cleanup,
        progress,
      });
      if (!valid)
        process.stderr.write(
          "bench: the soak's validity gate failed (errors, lost or duplicated webhooks, or ledger problems): the run does not count\n",
        );
      return valid ? 0 : 1;
    }
    const run =
      options.only === null
        ? bench
        : {
            'payments-list': benchPaymentsList,
            'payment-to-webhook': benchPaymentToWebhook,
            'event-stream': benchEventStream,
          }[options.only];
    await run(options, new Date(), cleanup);
    return 0;
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await cleanup.run();
  }
}

process.exitCode = await main(process.argv.slice(2));
