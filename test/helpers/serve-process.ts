import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN } from './cli.ts';
import { freePort, TEST_SERVER_ENV } from './gateway.ts';
import { temporaryFolder } from './temp-folders.ts';

/** A real `lipira serve` child process, listening on loopback. */
export interface ServeProcess {
  readonly pid: number;
  /** Where it listens, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Everything it printed so far, stdout and stderr together: for failure messages. */
  readonly output: string;
  /** SIGTERM, as an operator stops it; resolves with its exit code once it has gone. */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL: a crash that gives it no chance to finish anything; resolves once it has gone. */
  crash(): Promise<void>;
  /** For cleanup after a failure: kills it unless it has already gone. */
  dispose(): Promise<void>;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Starts `lipira serve` (with `options.args` after it) with the given environment additions
 * over `TEST_SERVER_ENV` (on a free port unless PORT is given, or `options.portFromEnvFile` says
 * which port the `.env` file in its working directory gives, when PORT is kept out of its
 * environment) and waits until `/healthz` answers. Children log at `warn` unless told otherwise,
 * so a passing run prints nothing; with that level the "listening" line never shows, hence the
 * health check rather than waiting for output. It runs in `options.cwd`, or else in a temporary
 * folder of its own, removed once it has exited, so that its relative defaults
 * (`./data/lipira.db`, `./data/outbox`) never reach the checkout's ./data.
 */
export async function startServe(
  env: Record<string, string>,
  options: { cwd?: string; readyTimeoutMs?: number; portFromEnvFile?: number; args?: string[] } = {},
): Promise<ServeProcess> {
  const port =
    options.portFromEnvFile === undefined ? (env.PORT ?? String(await freePort())) : String(options.portFromEnvFile);
  const own = options.cwd === undefined ? temporaryFolder('lipira-serve-') : null;
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: 'warn',
    ...TEST_SERVER_ENV,
    ...env,
    PORT: port,
  };
  // A variable of the environment would win over the file's.
  if (options.portFromEnvFile !== undefined) delete childEnv.PORT;
  const child = spawn(process.execPath, [BIN, 'serve', ...(options.args ?? [])], {
    cwd: options.cwd ?? own!.dir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // Set once the process has gone and its output is complete.
  const state: { exit: Exit | null } = { exit: null };
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      own?.remove();
      resolve((state.exit = { code, signal }));
    });
  });
  const url = `http://127.0.0.1:${port}`;

  const kill = async (signal: NodeJS.Signals) => {
    if (!state.exit) child.kill(signal);
    return exited;
  };

  // A minute: a process started beside others under full load (a fault scenario's restart) on a
  // loaded two-core machine once took over 20 s; one that fails to start exits long before.
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (!(await answers(`${url}/healthz`))) {
    if (state.exit)
      throw new Error(`lipira serve exited (${describeExit(state.exit)}) before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await kill('SIGKILL');
      throw new Error(`lipira serve was not ready on ${url} in time:\n${output}`);
    }
    await sleep(50);
  }

  return {
    pid: child.pid!,
    url,
    get output() {
      return output;
    },
    async stop(timeoutMs = 20_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const { code, signal } = await kill('SIGTERM');
      clearTimeout(timer);
      if (signal === 'SIGKILL')
        throw new Error(`lipira serve did not stop within ${timeoutMs} ms of SIGTERM:\n${output}`);
      return code;
    },
    async crash() {
      const gone = await kill('SIGKILL');
      if (gone.signal !== 'SIGKILL')
        throw new Error(`lipira serve had already exited (${describeExit(gone)}):\n${output}`);
    },
    async dispose() {
      await kill('SIGKILL');
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}
