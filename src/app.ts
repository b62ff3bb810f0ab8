import type http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { RouteEntry } from './http/method-not-allowed.ts';
import type { App } from './http/app-type.ts';
import { buildServer } from './http/server.ts';
import { paymentDeps } from './payment-deps.ts';
import type { GatewayContext } from './context.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { startSettler } from './payments/settler.ts';
import { startEmailWorker } from './emails/email-worker.ts';
import { startWebhookWorker } from './webhooks/webhook-worker.ts';
import { startSettlementWorker } from './ledger/settlement-worker.ts';
import { startPayoutScheduleWorker } from './payouts/schedule-worker.ts';
import type { Lifecycle } from './health/health-routes.ts';
import type { WorkKind } from './db/work-notices.ts';
import { startEventHub } from './events/event-hub.ts';
import type { WorkerLoop } from './shared/worker-loop.ts';
import { holdServingLock } from './operations/gateway-lock.ts';
import { startBackupSchedule, type BackupSchedule } from './operations/backup-schedule.ts';

/** How long closing waits for handlers whose clients already left before closing the database. */
const SHUTDOWN_DRAIN_LIMIT_MS = 10_000;

export interface Gateway {
  app: App;
  /** The routes it serves, as registered. */
  routes: RouteEntry[];
  database: Database;
  /** Its business time: the system's, or a test's own. */
  clock: Clock;
  /** The address it listens on, e.g. `http://127.0.0.1:8000`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Connections the kernel holds for the gateway to accept (capped by `net.core.somaxconn`). Node's
 * 511 overflowed in overload runs here (the kernel's ListenOverflows counted 117,000 connections
 * dropped in a few runs where clients opened a connection for each request), and a dropped
 * connection is tried again by the client's kernel only a second later.
 */
const LISTEN_BACKLOG = 4096;

/** Starts the HTTP server on an open database; closing it stops the server, then the database. */
export async function startGateway(
  config: Config,
  database: Database,
  logger: FastifyBaseLogger | false,
  clock: Clock = systemClock,
): Promise<Gateway> {
  // Held while the gateway runs, so that `lipira restore` refuses to replace its SQLite file (src/operations/gateway-lock.ts).
  const servingLock =
    database.dialect === 'sqlite' ? holdServingLock(config.databaseUrl.slice('sqlite:'.length)) : null;
  const payments = paymentDeps(config, database, clock);
  const lifecycle: Lifecycle = {
    runsWorkers: config.workers,
    workers: [],
    draining: false,
    closing: false,
    backups: null,
  };
  const log = logger || null;
  const events = startEventHub({ db: database.db, clock }, log);
  const ctx: GatewayContext = { config, database, payments, clock, lifecycle, events };
  const { app, inFlight, routes } = await buildServer(ctx, logger);
  let backups: BackupSchedule | null = null;
  try {
    await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG });
    if (config.backupDir !== null) backups = startBackupSchedule({ ...config, backupDir: config.backupDir }, log);
  } catch (error) {
    // What buildServer and the event hub opened would keep the process alive, not serving.
    await app.close();
    await events.close();
    servingLock?.release();
    throw error;
  }
  lifecycle.backups = backups?.status ?? null;
  const checkpoints = database.checkpointInBackground(log);
  const workers = config.workers ? startWorkers(ctx, log) : null;
  const workWatch = database.watchWork((kind, atMs) => {
    if (kind === 'events') events.wake();
    else workers?.[kind].wake(atMs);
  }, log);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    app,
    routes,
    database,
    clock,
    url: `http://${host}:${port}`,
    /**
     * Graceful shutdown: first drain (readiness fails, so a load balancer stops sending, while
     * requests are still served as usual); then stop listening, and answer each connection still
     * open once more with Connection: close, so keep-alive clients leave without a reset; then
     * wait for handlers in flight, let each worker finish what it holds, and close the database.
     */
    async close() {
      lifecycle.draining = true;
      await sleep(config.shutdownGraceMs);
      // Stop listening before asking clients to close: a client told to close opens a new
      // connection at once, and one still queued when the listener closes would be reset.
      net.Server.prototype.close.call(app.server);
      lifecycle.closing = true;
      // An event stream never ends by itself: ended now, its client reconnects (to another
      // process, or to this gateway once restarted) and resumes from its last event.
      await events.close();
      await finishConnections(app.server, config.shutdownGraceMs, SHUTDOWN_DRAIN_LIMIT_MS);
      await app.close();
      await inFlight.drained(SHUTDOWN_DRAIN_LIMIT_MS);
      await workWatch.stop();
      await Promise.all([...lifecycle.workers.map((worker) => worker.stop()), backups?.stop(), checkpoints.stop()]);
      await database.close();
      servingLock?.release();
    },
  };
}

/**
 * Starts the background workers into `lifecycle`; answers those woken when their work is written
 * (by the watch `startGateway` opens), whose interval is then only a safety net.
 */
function startWorkers(
  { config, database, payments, clock, lifecycle }: GatewayContext,
  log: FastifyBaseLogger | null,
): Record<Exclude<WorkKind, 'events'>, WorkerLoop> {
  const workers: Record<Exclude<WorkKind, 'events'>, WorkerLoop> = {
    settler: startSettler(payments, config.workerIntervalMs, log),
    webhooks: startWebhookWorker({
      db: database.db,
      dialect: database.dialect,
      transact: database.transact,
      config,
      clock,
      log,
    }),
    emails: startEmailWorker({
      db: database.db,
      dialect: database.dialect,
      transact: database.transact,
      config,
      clock,
      log,
    }),
  };
  lifecycle.workers = [
    ...Object.values(workers),
    startSettlementWorker(
      { db: database.db, clock },
      { live: config.settlementIntervalMs, test: config.testSettlement },
      log,
    ),
    startPayoutScheduleWorker(payments, config.workerIntervalMs, log),
  ];
  return workers;
}

/**
 * With the listener closed (net-level, so no connection is destroyed yet), gives the open
 * connections `idleGraceMs` to send the request they may be about to send (answered with
 * Connection: close), then closes those still idle and waits (up to `limitMs`) for the rest.
 * Node's http `close()` would destroy every idle connection at once, including one whose request
 * is on its way, which its client sees as a reset.
 */
async function finishConnections(server: http.Server, idleGraceMs: number, limitMs: number): Promise<void> {
  await sleep(idleGraceMs);
  server.closeIdleConnections();
  const openConnections = () =>
    new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
  for (let waited = 0; waited < limitMs && (await openConnections()) > 0; waited += 20) await sleep(20);
}
