import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cleanup } from './cleanup.ts';
import { nodeCommand } from './cpu-pinning.ts';

export interface ServerProcess {
  name: string;
  /** Origin the server answers on, e.g. http://127.0.0.1:40123 */
  url: string;
  pid: number;
}

export interface ServerSpec {
  name: string;
  /** Arguments to `node`, run from `cwd`. */
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Path that answers 2xx once the server can take load. */
  readyPath: string;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/** Asks the kernel for a free loopback port; the tiny window before the child binds it is acceptable here. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts `node …` as a child on a free port and resolves once it answers; stopping it is left to `cleanup`. */
export async function startServer(spec: ServerSpec, cleanup: Cleanup): Promise<ServerProcess> {
  const port = await freePort();
  // Child output goes to our stderr so it shows up without mixing into the table on stdout.
  const node = nodeCommand(spec.args);
  const child = spawn(node.command, node.args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env, PORT: String(port) },
    stdio: ['ignore', 2, 2],
  });
  cleanup.add(() => stop(child));
  if (child.pid === undefined) throw new Error(`${spec.name}: could not be started`);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(spec.name, child, url + spec.readyPath);
  return { name: spec.name, url, pid: child.pid };
}

async function waitUntilReady(name: string, child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child))
      throw new Error(`${name} exited (code ${child.exitCode ?? child.signalCode}) before answering ${url}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${name} did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

/** SIGTERM lets the gateway close its database cleanly; SIGKILL is the fallback for a hung child. */
async function stop(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
