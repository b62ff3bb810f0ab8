import { setTimeout as sleep } from 'node:timers/promises';
import type { Cleanup } from '../cleanup.ts';
import { startGateway, type Gateway } from '../gateway.ts';
import { analyzeWhileAutovacuumOff } from './analyze-while-autovacuum-off.ts';
import { OVERLOAD_SECONDS, type DbKind, type SoakOptions } from '../options.ts';
import { rssMegabytes } from '../proc-stats.ts';
import { saveReport } from '../report.ts';
import { offerArrivals } from './constant-arrivals.ts';
import { overloadFigures, overloadGoodputWindow, overloadPhases } from './overload.ts';
import { GatewayClient } from './gateway-client.ts';
import { pay } from './payment-journey.ts';
import { SoakLog } from './soak-log.ts';
import { peakRssMb } from './soak-timeline.ts';
import { buildSoakReport, formatSoakReport, type LedgerCheck } from './soak-report.ts';
import { sampleTimeline } from './timeline-sampler.ts';
import { WebhookReceiver } from './webhook-receiver.ts';
import { cpuOverWindow } from './window-cpu.ts';
import { statementsOverWindow } from './window-statements.ts';

/**
 * The gateway as the sandbox runs it, unlike the batch's: mobile money approved after a second
 * (settled by the settler or the page's poll, whichever asks first), and the workers at their
 * default interval, since the time a payment takes to reach its webhook is part of what is measured.
 */
const SOAK_GATEWAY_ENV = { SANDBOX_MOBILE_DELAY: '1s', WORKER_INTERVAL: null };
/** After the offered load stops, how long payments in flight may take to finish. */
const DRAIN_LIMIT_MS = 60_000;
/** After the last payment, time for a webhook sent twice to arrive a second time. */
const DUPLICATE_GRACE_MS = 2_000;

export interface SoakRun {
  repoRoot: string;
  resultsDir: string;
  db: DbKind;
  soak: SoakOptions;
  startedAt: Date;
  cleanup: Cleanup;
  progress: (message: string) => void;
}

/**
 * `--soak`: whole payments at a constant arrival rate against a fresh gateway, then the checks.
 * Returns whether the validity gate held (ledger clean, every webhook once, no errors).
 */
export async function runSoak({
  repoRoot,
  resultsDir,
  db,
  soak,
  startedAt,
  cleanup,
  progress,
}: SoakRun): Promise<boolean> {
  const log = new SoakLog(soak.warmUpSeconds * 1000, soak.seconds * 1000);
  const receiver = new WebhookReceiver(log);
  // Listening before the gateway starts, the receiver closes after it stops (cleanup runs newest
  // first): a gateway still delivering would otherwise log every webhook it could not send.
  const webhookUrl = await receiver.listen(cleanup);
  const gateway = await startGateway(repoRoot, db, startedAt, cleanup, SOAK_GATEWAY_ENV);
  await gateway.cli(['merchant', 'update', gateway.merchantId, '--webhook-url', webhookUrl]);
  const analyzing = await analyzeWhileAutovacuumOff(gateway.databaseUrl, cleanup);
  if (analyzing) progress(analyzing);
  const client = new GatewayClient(gateway.url);
  cleanup.add(async () => client.close());
  const journey = { client, origin: gateway.url, secretKey: gateway.secretKey, receiver, log };

  progress(
    soak.overload
      ? `soak: ${soak.rate} payments/s for ${soak.warmUpSeconds} s, ${2 * soak.rate}/s for ${OVERLOAD_SECONDS} s, then ${soak.rate}/s until ${soak.seconds} s`
      : `soak: ${soak.rate} payments/s for ${soak.seconds} s, the first ${soak.warmUpSeconds} s left out of the figures`,
  );
  const t0 = performance.now();
  log.start(t0);
  sampleTimeline(gateway.pid, client, log.timeline, cleanup);
  const window = { from: t0 + soak.warmUpSeconds * 1000, to: t0 + soak.seconds * 1000 };
  const postgresDatabase = db === 'postgres' ? new URL(gateway.databaseUrl).pathname.slice(1) : null;
  const cpu = cpuOverWindow(gateway.pid, postgresDatabase, window.from, window.to);
  const statements = statementsOverWindow(client, window.from, window.to);
  // Awaited with the results; a gateway that died fails the run there, not as an unhandled rejection before it.
  cpu.catch(() => undefined);
  statements.catch(() => undefined);
  if (soak.overload) log.goodputWindow = overloadGoodputWindow(soak, t0);
  const phases = soak.overload ? overloadPhases(soak) : [{ rate: soak.rate, seconds: soak.seconds }];
  const arrivals = await offerArrivals(t0, phases, DRAIN_LIMIT_MS, (index) => pay(journey, `soak-${index}`));
  progress(
    `soak: offered load stopped and drained (${arrivals.unfinished} unfinished); checking webhooks and the ledger`,
  );
  await sleep(DUPLICATE_GRACE_MS);
  const endRssMb = rssMegabytes(gateway.pid);
  const timeline = log.timeline.seconds();

  const report = buildSoakReport(
    {
      payments: {
        started: arrivals.started,
        completed: log.completed,
        failed: log.failed,
        refused: log.refused,
        unfinished: arrivals.unfinished,
        completedInWindow: log.completedInWindow,
      },
      windowSeconds: log.windowSeconds,
      steps: log.figures(),
      errorExamples: log.errorExamples(),
      webhooks: receiver.counts(),
      ledger: await checkLedger(gateway),
      rss: { endMb: endRssMb, peakMb: Math.max(peakRssMb(timeline), endRssMb) },
      generatorMaxLagMs: arrivals.maxLagMs,
      cpu: await cpu,
      statementsInWindow: await statements,
      timeline,
      busyAnswers: log.busyLatencies.length,
      busyAnswersInWindow: log.busyInWindow,
      overload: soak.overload ? overloadFigures(soak, log, timeline) : null,
    },
    db,
    soak,
    startedAt,
  );
  process.stdout.write(formatSoakReport(report));
  process.stdout.write(`\nSaved ${await saveReport(report, resultsDir, 'soak')}\n`);
  return report.valid;
}

/** `lipira ledger check`, as an operator runs it: exit 1 with the problems on stderr when there are any. */
async function checkLedger(gateway: Gateway): Promise<LedgerCheck> {
  try {
    return { clean: true, lines: lines(await gateway.cli(['ledger', 'check'])) };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    const printed = lines(stderr + stdout);
    return {
      clean: false,
      lines: printed.length > 0 ? printed : [error instanceof Error ? error.message : String(error)],
    };
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
