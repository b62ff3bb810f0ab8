import { startGateway } from '../app.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createMerchant } from '../merchants/merchant-service.ts';
import { claimAppState, countMerchants } from '../merchants/merchant-repository.ts';
import { noMorePositionals, parseArgs } from './args.ts';
import { tuneHeapForServing } from './heap-tuning.ts';
import { print } from './output.ts';
import { serveLogger } from './serve-logger.ts';
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
  const database = await openMigratedDatabase(config.databaseUrl, { connectTimeoutMs: config.databaseConnectTimeoutMs, queryTimeoutMs: config.databaseQueryTimeoutMs });
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

/**
 * The first start against an empty database creates a demo merchant and prints, once, what a
 * newcomer needs to try the API. The app_state marker keeps concurrent first starts to one.
 */
async function introduceDemoMerchant(database: Database, config: Config): Promise<void> {
  if ((await countMerchants(database.db)) > 0) return;
  if (!(await claimAppState(database.db, 'demo_merchant_created', new Date().toISOString()))) return;
  const demo = await createMerchant(database.db, {
    name: 'Demo Store',
    email: 'demo@example.com',
    webhookUrl: null,
    feeBasisPoints: config.defaultFeeBasisPoints,
  });
  const body = JSON.stringify({
    tx_ref: 'demo-0001',
    amount: 1000,
    currency: 'MWK',
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    callback_url: 'https://example.com/paid',
    return_url: 'https://example.com/cancelled',
  });
  print(`
Created a demo merchant (${demo.id}). Its test secret key is shown only this once:

  ${demo.test_secret_key}

Create a checkout session:

  curl -s -X POST ${config.publicBaseUrl}/payment \\
    -H 'Authorization: Bearer ${demo.test_secret_key}' \\
    -H 'Content-Type: application/json' -H 'Accept: application/json' \\
    -d '${body}'

Then verify it:

  curl -s ${config.publicBaseUrl}/verify-payment/demo-0001 -H 'Authorization: Bearer ${demo.test_secret_key}'

More merchants: npx lipira merchant create --name NAME --email EMAIL
`);
}
