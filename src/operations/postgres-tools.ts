import { spawn } from 'node:child_process';
import pg from 'pg';
import { GATEWAY_APPLICATION_NAME } from '../db/application-name.ts';
import { createPostgresDatabaseIfMissing, quoteIdentifier } from '../db/database.ts';
import { randomBase62 } from '../shared/ids.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';

export type PostgresTool = 'pg_dump' | 'pg_restore';

interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of PostgreSQL's client programs against the database a URL names; null when the
 * program is not on PATH. The password goes in the environment (PGPASSWORD), not on the command
 * line, where any user of the machine could read it in the process list.
 */
export function runTool(tool: PostgresTool, args: string[], url?: string): Promise<ToolRun | null> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const dbname: string[] = [];
  if (url) {
    const parsed = new URL(url);
    if (parsed.password) env.PGPASSWORD = decodeURIComponent(parsed.password);
    parsed.password = '';
    dbname.push(`--dbname=${parsed.toString()}`);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [...args, ...dbname], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(null) : reject(error)));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A tool's run that must succeed: its output, or an error quoting what it said (and, when it is missing, what to run by hand). */
export async function runToolOrFail(
  tool: PostgresTool,
  args: string[],
  { url, instead }: { url?: string; instead?: string } = {},
): Promise<string> {
  const run = await runTool(tool, args, url);
  if (run === null)
    throw new Error(
      `${tool} is not on PATH: install PostgreSQL's client programs${instead ? `, or run where they are:\n  ${instead}` : ''}`,
    );
  if (run.code !== 0) throw new Error(`${tool} failed (exit ${String(run.code)}): ${run.stderr.trim()}`);
  return run.stdout;
}

/** The command line an operator runs by hand, with the URL's secrets masked. */
export const commandLine = (tool: PostgresTool, args: string[], url: string): string =>
  [tool, ...args, `--dbname='${maskUrlSecrets(url)}'`].join(' ');

export const databaseName = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1));

export function withDatabaseName(url: string, name: string): string {
  const renamed = new URL(url);
  renamed.pathname = `/${encodeURIComponent(name)}`;
  return renamed.toString();
}

/** Runs `work` on a connection to the server's `postgres` database, from which other databases are created, renamed and dropped. */
export async function withServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabaseName(url, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Connections of running gateways to the database: their pools and work listeners name themselves (src/db/database.ts). */
export async function connectedGateways(url: string): Promise<number> {
  return withServer(url, async (client) => {
    const found = await client.query<{ count: string }>(
      'select count(*) as count from pg_stat_activity where datname = $1 and application_name = $2',
      [databaseName(url), GATEWAY_APPLICATION_NAME],
    );
    return Number(found.rows[0]!.count);
  });
}

/** Whether the database exists and holds any table of its own. */
export async function holdsData(url: string): Promise<boolean> {
  const exists = await withServer(url, async (client) =>
    Boolean((await client.query('select 1 from pg_database where datname = $1', [databaseName(url)])).rowCount),
  );
  if (!exists) return false;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query(
      "select 1 from pg_tables where schemaname not in ('pg_catalog', 'information_schema') limit 1",
    );
    return Boolean(tables.rowCount);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A dump restored into a new database of its own beside `url`'s, named after it: where a backup
 * is checked, and where a restore is made ready before it takes the configured database's name.
 */
export async function restoreIntoScratch(file: string, url: string, purpose: string): Promise<ScratchDatabase> {
  const name = `${databaseName(url)}_${purpose}_${randomBase62(6).toLowerCase()}`;
  const scratchUrl = withDatabaseName(url, name);
  await createPostgresDatabaseIfMissing(scratchUrl);
  const scratch = {
    url: scratchUrl,
    name,
    drop: () =>
      withServer(
        url,
        async (client) => void (await client.query(`drop database if exists ${quoteIdentifier(name)} with (force)`)),
      ),
  };
  try {
    await runToolOrFail('pg_restore', ['--no-owner', '--exit-on-error', file], { url: scratchUrl });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return scratch;
}
