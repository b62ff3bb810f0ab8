import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { startGateway } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { MOST_SERVE_PROCESSES } from '../settings/settings.ts';
import { noMorePositionals, parseArgs, stringOption, UsageError } from './args.ts';
import { introduceDemoMerchant } from './demo-merchant.ts';
import { tuneHeapForServing } from './heap-tuning.ts';
import { print, printError } from './output.ts';
import { serveLogger } from './serve-logger.ts';
import { superviseWorkers } from './serve-workers.ts';
import { databaseWarnings, startWarnings } from './start-warnings.ts';
import { openMigratedDatabase } from '../db/migrate.ts';

export async function migrateCommand(argv: string[], config: Config): Promise<number> {
  noMorePositionals(parseArgs(argv, []), 0);
  const database = await openMigratedDatabase(config.databaseUrl);
  await database.close();
  print(`Migrations are up to date on ${database.description}`);
  return 0;
}

/**
 * `lipira serve [--workers N]`: one process serving, or with N > 1 a `node:cluster` primary that
 * migrates and introduces the demo merchant once, then forks N workers (each runs this command
 * again, as a cluster worker) and supervises them (serve-workers.ts).
 */
export async function serveCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, ['workers']);
  noMorePositionals(args, 0);
  const processes = processCount(stringOption(args, 'workers'), config);
  const limits = {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    listenUrl: config.databaseListenUrl,
    namedStatements: config.databaseNamedStatements,
  };
  const logger = serveLogger(config.logLevel);
  // A worker forked by our primary has its arguments and environment, so asks for N > 1 too;
  // with 1, a process that is a cluster worker is another manager's (pm2) and serves as ever.
  if (cluster.isWorker && processes > 1) {
    // Listening from the start: a signal that arrives while the gateway starts is kept, and a
    // second one (a terminal's Ctrl-C or systemd reach every process beside the primary's
    // relay) must not end the worker before its gateway has closed.
    const stopped = stopSignal('on');
    tuneHeapForServing();
    try {
      return await serve(config, logger, await openDatabase(config.databaseUrl, limits), stopped);
    } finally {
      // The channel to the primary would keep the process alive once the gateway has closed.
      cluster.worker!.disconnect();
    }
  }
  const announce = (warnings: string[]) => {
    for (const warning of warnings) {
      logger.warn(warning);
      printError(`warning: ${warning}`);
    }
  };
  announce(startWarnings(config));
  if (processes === 1) tuneHeapForServing();
  const database = await openMigratedDatabase(config.databaseUrl, limits);
  announce(await databaseWarnings(database));
  await introduceDemoMerchant(database, config);
  if (processes === 1) return serve(config, logger, database, null);
  await database.close();
  return superviseWorkers(processes, logger);
}

/**
 * How many processes serve: `--workers` if given, else WEB_CONCURRENCY. More than one on SQLite
 * is refused: its one file takes one writer at a time, each commit an fsync, so processes only
 * queue for its write lock and lose the commits one process shares (docs/operate/deployment.md).
 */
function processCount(flag: string | undefined, config: Config): number {
  if (flag !== undefined && !(/^\d+$/.test(flag) && Number(flag) >= 1 && Number(flag) <= MOST_SERVE_PROCESSES))
    throw new UsageError(`--workers must be a whole number from 1 to ${MOST_SERVE_PROCESSES} (got "${flag}")`);
  const processes = flag === undefined ? config.webConcurrency : Number(flag);
  if (processes > 1 && config.databaseUrl.startsWith('sqlite:')) {
    const asked = flag === undefined ? `WEB_CONCURRENCY=${processes}` : `--workers ${processes}`;
    throw new UsageError(
      `${asked} needs PostgreSQL: SQLite writes one transaction at a time to its one file, each commit an fsync, so more processes only queue for its write lock (measured slower: docs/operate/deployment.md, Several processes)`,
    );
  }
  return processes;
}

/**
 * Serves on an open database until SIGTERM or SIGINT (`stopped`, or from once the gateway
 * listens), then closes the gateway gracefully.
 */
async function serve(
  config: Config,
  logger: Logger,
  database: Database,
  stopped: Promise<NodeJS.Signals> | null,
): Promise<number> {
  let gateway;
  try {
    gateway = await startGateway(config, database, logger);
  } catch (error) {
    await database.close();
    throw error;
  }
  logger.info({ url: gateway.url, database: database.description }, 'Lipira is listening');
  const signal = await (stopped ?? stopSignal('once'));
  logger.info({ signal }, 'shutting down');
  try {
    await gateway.close();
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
  }
  return 0;
}

/** The first SIGTERM or SIGINT from now on; with `once`, a second one ends the process at once, as by default. */
function stopSignal(listening: 'on' | 'once'): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process[listening](signal, () => resolve(signal));
  });
}
