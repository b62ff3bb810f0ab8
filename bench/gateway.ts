import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Cleanup } from './cleanup.ts';
import type { DbKind } from './options.ts';
import { startServer, type ServerProcess } from './servers.ts';

const execFileAsync = promisify(execFile);
const POSTGRES_SERVER = 'postgres://postgres@127.0.0.1:5432';

export interface Gateway extends ServerProcess {
  /** The merchant the load runs as, and its test secret key. */
  merchantId: string;
  secretKey: string;
  /** Where the gateway keeps its data, for the bench's own connection. */
  databaseUrl: string;
  /** Runs `lipira …` on the gateway's database, as an operator would. */
  cli(args: string[]): Promise<string>;
}

/**
 * A fresh database, a merchant in it, and `lipira serve` on top: what the gateway scenarios load.
 * `envOverrides` changes the settings below for one kind of run; null leaves a setting unset, at
 * the gateway's own default.
 */
export async function startGateway(
  repoRoot: string,
  db: DbKind,
  startedAt: Date,
  cleanup: Cleanup,
  envOverrides: Record<string, string | null> = {},
): Promise<Gateway> {
  const databaseUrl = await freshDatabase(db, startedAt, cleanup);
  // The bench merchant's receipts are off; anything mailed all the same stays out of ./data.
  const outbox = await mkdtemp(path.join(os.tmpdir(), 'lipira-bench-outbox-'));
  cleanup.add(() => rm(outbox, { recursive: true, force: true }));
  const env = withOverrides(
    {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      OUTBOX_DIR: outbox,
      // One key makes every request here, far above the per-key limit meant for merchants.
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      // Every client here is on loopback: the hosted page rows would be limited by address.
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
      RATE_LIMIT_ADDRESS_BURST: '1000000',
      // …and the soak's clients hold up to 1,024 connections from that one address.
      MAX_CONNECTIONS_PER_ADDRESS: '2048',
      // Seeded mobile money charges settle at once, so the verify and details scenarios read final
      // charges instead of settling them mid-measurement.
      SANDBOX_MOBILE_DELAY: '0',
      // Queued webhooks are picked up within 50 ms, so delivery throughput is not the poll interval's.
      WORKER_INTERVAL: '50ms',
      // The webhook scenario's receiver listens on loopback, where test-mode webhooks go only when allowed.
      WEBHOOK_ALLOW_LOOPBACK: 'on',
      // Nothing is in flight when the bench stops the gateway: no need to wait for clients to leave.
      SHUTDOWN_GRACE: '0s',
    },
    envOverrides,
  );
  const cli = async (args: string[]) =>
    (
      await execFileAsync(process.execPath, ['bin/lipira.js', ...args], {
        cwd: repoRoot,
        env: { ...process.env, ...env },
      })
    ).stdout;
  const merchant = await createMerchant(cli);
  // Settled seed charges would otherwise queue receipt emails, whose sending would run behind the
  // next scenarios; email is not in the table.
  await cli(['merchant', 'update', merchant.id, '--receipts', 'off']);
  const server = await startServer(
    { name: 'lipira serve', args: ['bin/lipira.js', 'serve'], cwd: repoRoot, env, readyPath: '/healthz' },
    cleanup,
  );
  return { ...server, merchantId: merchant.id, secretKey: merchant.secretKey, databaseUrl, cli };
}

let databasesMade = 0;

function withOverrides(env: Record<string, string>, overrides: Record<string, string | null>): Record<string, string> {
  const merged = { ...env, ...overrides };
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null));
}

/** Each gateway gets its own database, so earlier runs' rows never skew the numbers. */
async function freshDatabase(db: DbKind, startedAt: Date, cleanup: Cleanup): Promise<string> {
  if (db === 'sqlite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lipira-bench-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    return `sqlite:${path.join(dir, 'bench.db')}`;
  }
  // The gateway creates the database on first use; the bench only has to drop it afterwards.
  const name = `lipira_bench_${startedAt.getTime()}_${++databasesMade}`;
  cleanup.add(() => dropPostgresDatabase(name));
  return `${POSTGRES_SERVER}/${name}`;
}

async function dropPostgresDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_SERVER}/postgres` });
  await client.connect();
  try {
    // FORCE ends any connection a killed gateway may have left behind.
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** A merchant made through the CLI, as an operator makes one: its id and test secret key. */
export async function createMerchant(
  cli: Gateway['cli'],
  name = 'Bench',
  email = 'bench@example.com',
): Promise<{ id: string; secretKey: string }> {
  const merchant = JSON.parse(await cli(['merchant', 'create', '--name', name, '--email', email, '--json'])) as {
    id?: unknown;
    test_secret_key?: unknown;
  };
  if (typeof merchant.id !== 'string' || typeof merchant.test_secret_key !== 'string')
    throw new Error('merchant create --json printed no id or test_secret_key');
  return { id: merchant.id, secretKey: merchant.test_secret_key };
}
