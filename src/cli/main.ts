import { ConfigError, loadConfig } from '../config.ts';
import { UsageError } from './args.ts';
import { EnvFileError, settingsEnvironment } from './env-file.ts';
import { endQuietlyWhenOutputCloses, print, printError } from './output.ts';

const USAGE = `Usage: lipira <command>

  serve [--workers N]                     start the gateway (what \`npm start\` runs); N processes on one port
                                          (PostgreSQL only; default WEB_CONCURRENCY, else 1)
  migrate                                 apply database migrations
  migrate-data --from sqlite:PATH --to postgres://USER@HOST:PORT/DB
                                          move every table from SQLite to an empty PostgreSQL database, then check
                                          row counts, the ledger and balances (gateway stopped; nothing written on failure)
  config [--json | --markdown]            print the effective configuration, secrets masked, or the reference
  merchant create --name NAME --email EMAIL [--webhook-url URL] [--json]
  merchant list [--json]
  merchant update ID [--webhook-url URL] [--receipts on|off] [--fee-percent N]
  keys roll ID --mode test|live [--expire-old-in DURATION] [--json]
  webhooks list --merchant ID [--mode test|live] [--status S] [--tx-ref REF] [--charge-id ID] [--page N] [--json]
  webhooks show DELIVERY_ID [--json]
  webhooks redeliver DELIVERY_ID
  refunds create (--charge-id ID | --tx-ref REF) --merchant ID [--mode test|live] [--amount N] [--reason TEXT] [--json]
  refunds list --merchant ID [--mode test|live] [--charge-id ID | --tx-ref REF] [--json]
  listen (--forward-to URL | --print-json) [--events TYPE,…] [--url GATEWAY_URL] [--api-key sec-test-…]
                                          a gateway's events as they happen, forwarded signed as webhooks to
                                          URL, or printed as JSON lines; key and URL also from LIPIRA_API_KEY
                                          and LIPIRA_URL (environment or .env); runs until Ctrl-C
  backup FILE                             a consistent copy of the database into FILE, taken while the gateway
                                          serves, then checked (SQLite: integrity, migrations, ledger;
                                          PostgreSQL: pg_dump, checked in a scratch database)
  restore FILE [--replace]                check a backup, then put it in place of the database; refused while a
                                          gateway uses it; --replace to replace data, which is kept aside
  ledger check                            prove the ledger balances (exit 1 if not)
  ledger settle                           move collected money to main balances now
  charges review [--json]                 live payments, payouts and refunds left without a final answer
  users create --merchant ID --email EMAIL --role owner|developer|viewer [--password-stdin] [--json]
  users create --operator --email EMAIL [--password-stdin] [--json]
                                          a dashboard user; without a password, prints and emails a one-time set-password link
  users list [--merchant ID] [--json]     dashboard users: role, merchant, password, two-factor, disabled
  users reset-password EMAIL [--json]     the old password stops working; prints and emails a set-password link
  users reset-2fa EMAIL [--json]          turn a user's two-factor sign-in off (they set it up again at next sign-in)
  users disable EMAIL [--json]            refuse the user's sign-ins until enabled again
  users enable EMAIL [--json]             let a disabled user sign in again
                                          (the resets and disable end the user's sessions; all are audited)
  trigger checkout.payment [--failed] [--meta KEY=VALUE]... | api.charge.payment [--method mobile_money|card|bank_transfer]
          | api.refund | api.payout  [--amount N] [--currency C] [--url URL] [--api-key KEY] [--json]
                                          make a test-mode event happen for real (a payment paid as its customer pays it)
  test expire TX_REF | complete CHARGE_ID --status success|failed [--failure-code CODE]
       | receive CHARGE_ID --amount N | settle | retry-webhook DELIVERY_ID  [--url URL] [--api-key KEY] [--json]
                                          the test helpers: make what a test waits for happen now

Every command reads DATABASE_URL (default sqlite:./data/lipira.db) and every other setting from the
environment, or else from a .env file in the working directory. \`trigger\` and \`test\` talk to a gateway over HTTP:
LIPIRA_URL (default: this machine's gateway) and LIPIRA_API_KEY, a test secret key.`;

type Command = (argv: string[], config: ReturnType<typeof loadConfig>) => Promise<number>;

/** Loaded on demand, so that a short command does not pay for the HTTP stack. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve-command.ts')).serveCommand,
  migrate: async () => (await import('./serve-command.ts')).migrateCommand,
  'migrate-data': async () => (await import('./migrate-data-command.ts')).migrateDataCommand,
  merchant: async () => (await import('./merchant-command.ts')).merchantCommand,
  keys: async () => (await import('./keys-command.ts')).keysCommand,
  webhooks: async () => (await import('./webhooks-command.ts')).webhooksCommand,
  refunds: async () => (await import('./refunds-command.ts')).refundsCommand,
  listen: async () => (await import('./listen-command.ts')).listenCommand,
  ledger: async () => (await import('./ledger-command.ts')).ledgerCommand,
  backup: async () => (await import('./backup-command.ts')).backupCommand,
  restore: async () => (await import('./restore-command.ts')).restoreCommand,
  charges: async () => (await import('./charges-command.ts')).chargesCommand,
  config: async () => (await import('./config-command.ts')).configCommand,
  users: async () => (await import('./users-command.ts')).usersCommand,
  trigger: async () => (await import('./trigger-command.ts')).triggerCommand,
  test: async () => (await import('./test-command.ts')).testCommand,
};

/** Runs one command line; resolves to the process exit status. */
export async function main(argv: string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    print(USAGE);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    printError(`unknown command "${name}" (try: lipira help)`);
    return 2;
  }
  try {
    const command = await load();
    return await command(rest, loadConfig(settingsEnvironment()));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof EnvFileError) {
      printError(error.message);
      return 2;
    }
    printError(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
