import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** The cores the servers the bench starts may use; null while unpinned. */
let serverCpus: string | null = null;

/**
 * `--pin`: the bench process (the load generator) on the machine's last core, every server it
 * starts on the others, so that load and gateway do not take each other's CPU and a wait measured
 * by the client is not its own event loop's. PostgreSQL is left where the system puts it.
 * Returns what was done, for the report.
 */
export function pinBenchApart(): string {
  const cores = os.availableParallelism();
  if (cores < 2) throw new Error('--pin needs at least two cores');
  const benchCpu = String(cores - 1);
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', benchCpu, String(process.pid)], { stdio: 'ignore' });
  serverCpus = cores === 2 ? '0' : `0-${cores - 2}`;
  return `the load generator on core ${benchCpu}, the servers on ${serverCpus}`;
}

/** How to start `node args…`: under `taskset` on the servers' cores once pinned. */
export function nodeCommand(args: string[]): { command: string; args: string[] } {
  return serverCpus === null
    ? { command: process.execPath, args }
    : { command: 'taskset', args: ['--cpu-list', serverCpus, process.execPath, ...args] };
}
