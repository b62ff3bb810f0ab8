import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { RouteEntry } from './http/method-not-allowed.ts';
import { buildServer, type App } from './http/server.ts';
import { paymentDeps } from './payments/providers.ts';
import { startSettler } from './payments/settler.ts';
import { startEmailWorker } from './emails/email-worker.ts';
import { startWebhookWorker } from './webhooks/webhook-worker.ts';
import { startSettlementWorker } from './ledger/settlement-worker.ts';

/** How long closing waits for handlers whose clients already left before closing the database. */
const SHUTDOWN_DRAIN_LIMIT_MS = 10_000;

export interface Gateway {
  app: App;
  /** The routes it serves, as registered. */
  routes: RouteEntry[];
  database: Database;
  /** The address it listens on, e.g. `http://127.0.0.1:8000`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP server on an open database; closing it stops the server, then the database. */
export async function startGateway(config: Config, database: Database, logger: FastifyBaseLogger | false): Promise<Gateway> {
  const payments = paymentDeps(config, database.db);
  const { app, inFlight, routes } = await buildServer({ config, database, payments, logger });
  await app.listen({ host: config.host, port: config.port });
  const log = logger || null;
  const workers = [
    startSettler(payments, config.workerIntervalMs, log),
    startWebhookWorker({ db: database.db, dialect: database.dialect, config, log }),
    startEmailWorker({ db: database.db, dialect: database.dialect, config, log }),
    startSettlementWorker(database.db, config.settlementIntervalMs, log),
  ];
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    app,
    routes,
    database,
    url: `http://${host}:${port}`,
    async close() {
      await app.close();
      await inFlight.drained(SHUTDOWN_DRAIN_LIMIT_MS);
      await Promise.all(workers.map((worker) => worker.stop()));
      await database.close();
    },
  };
}
