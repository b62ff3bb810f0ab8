import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './gateway.ts';
import { temporaryFolder } from './temp-folders.ts';

export const PGBOUNCER_PATH = '/usr/sbin/pgbouncer';

/**
 * Skips a PgBouncer suite where Debian's pgbouncer is not installed, except when
 * LIPIRA_REQUIRE_PGBOUNCER=1 (CI, whose .ci/run installs it), where it must fail instead.
 */
export function pgbouncerSuiteOptions(): { skip: string | false } {
  const missing = !fs.existsSync(PGBOUNCER_PATH);
  if (missing && process.env.LIPIRA_REQUIRE_PGBOUNCER === '1')
    throw new Error(
      `${PGBOUNCER_PATH} is missing (apt-get install pgbouncer); LIPIRA_REQUIRE_PGBOUNCER=1 makes this a failure`,
    );
  return {
    skip: !process.env.TEST_DATABASE_URL ? 'no PostgreSQL' : missing ? `${PGBOUNCER_PATH} is not installed` : false,
  };
}

export interface PgBouncer {
  /** `url` (a postgres URL of the server) as reached through the pooler. */
  through(url: string): string;
  close(): Promise<void>;
}

/**
 * A real PgBouncer in transaction mode in front of the PostgreSQL server `serverUrl` names, on a
 * free loopback port: the deployment docs/operate/deployment.md describes, with the settings it says a
 * pooler needs. It runs as the `postgres` user (it refuses root) from a folder of its own.
 */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const folder = temporaryFolder('lipira-pgbouncer-');
  fs.chmodSync(folder.dir, 0o777);
  const file = (name: string, text: string) => {
    fs.writeFileSync(path.join(folder.dir, name), text, { mode: 0o644 });
    return path.join(folder.dir, name);
  };
  const users = file('users.txt', `"${decodeURIComponent(server.username)}" ""\n`);
  const ini = file(
    'pgbouncer.ini',
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'default_pool_size = 5',
      'max_client_conn = 200',
      // node-postgres sends these as startup parameters; PgBouncer refuses unknown ones.
      'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout',
      `pidfile = ${path.join(folder.dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const child = spawn(PGBOUNCER_PATH, ['-u', 'postgres', ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start:\n${output}`);
    }
    await sleep(50);
  }
  return {
    through(url) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async close() {
      child.kill('SIGINT');
      await exited;
      folder.remove();
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
