import { startGateway } from '../app.ts';
import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs } from './args.ts';
import { introduceDemoMerchant } from './demo-merchant.ts';
import { tuneHeapForServing } from './heap-tuning.ts';
import { print, printError } from './output.ts';
import { serveLogger } from './serve-logger.ts';
import { startWarnings } from './start-warnings.ts';
import { openMigratedDatabase } from '../db/migrate.ts';

export async function migrateCommand(argv: string[], config: Config): Promise<number> {
  noMorePositionals(parseArgs(argv, []), 0);
  const database = await openMigratedDatabase(config.databaseUrl);
  await database.close();
  print(`Migrations are up to date on ${database.description}`);
  return 0;
}

export async function serveCommand(argv: string[], config: Config): Promise<number> {
  noMorePositionals(parseArgs(argv, []), 0);
  tuneHeapForServing();
  const logger = serveLogger(config.logLevel);
  for (const warning of startWarnings(config)) {
    logger.warn(warning);
    printError(`warning: ${warning}`);
  }
  const database = await openMigratedDatabase(config.databaseUrl, {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
  });
  await introduceDemoMerchant(database, config);
  const gateway = await startGateway(config, database, logger);
  logger.info({ url: gateway.url, database: database.description }, 'Lipira is listening');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      gateway.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}
