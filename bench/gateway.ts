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
  /** Test secret key of the merchant the load runs as. */
  secretKey: string;
}

/** A fresh database, a merchant in it, and `lipira serve` on top: what the gateway scenarios load. */
export async function startGateway(repoRoot: string, db: DbKind, startedAt: Date, cleanup: Cleanup): Promise<Gateway> {
  const databaseUrl = await freshDatabase(db, startedAt, cleanup);
  // One key makes every request here, far above the per-key limit meant for merchants.
  const env = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' };
  const secretKey = await createMerchant(repoRoot, env);
  const server = await startServer({ name: 'lipira serve', args: ['bin/lipira.js', 'serve'], cwd: repoRoot, env, readyPath: '/healthz' }, cleanup);
  return { ...server, secretKey };
}

/** Each run gets its own database, so earlier runs' rows never skew the numbers. */
async function freshDatabase(db: DbKind, startedAt: Date, cleanup: Cleanup): Promise<string> {
  if (db === 'sqlite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lipira-bench-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    return `sqlite:${path.join(dir, 'bench.db')}`;
  }
  // The gateway creates the database on first use; the bench only has to drop it afterwards.
  const name = `lipira_bench_${startedAt.getTime()}`;
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

async function createMerchant(repoRoot: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['bin/lipira.js', 'merchant', 'create', '--name', 'Bench', '--email', 'bench@example.com', '--json'],
    { cwd: repoRoot, env: { ...process.env, ...env } },
  );
  const merchant = JSON.parse(stdout) as { test_secret_key?: unknown };
  if (typeof merchant.test_secret_key !== 'string') throw new Error('merchant create --json printed no test_secret_key');
  return merchant.test_secret_key;
}
