import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { temporaryFolder } from './temp-folders.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/lipira.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `lipira …` as a real child process with the given environment additions, in `cwd`, or
 * else in a temporary folder of its own, removed once it has exited: relative defaults such as
 * `sqlite:./data/lipira.db` then never reach the checkout's ./data. `input` is its standard
 * input (empty without it).
 */
export function lipira(args: string[], env: Record<string, string>, cwd?: string, input?: string): Promise<CliResult> {
  const own = cwd === undefined ? temporaryFolder('lipira-cli-') : null;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: cwd ?? own!.dir,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(input ?? '');
  return outputOf(child).finally(() => own?.remove());
}

/** What a child process printed on its piped stdout and stderr (nothing from one already closed), and its exit status. */
export function outputOf(child: ChildProcessByStdio<Writable | null, Readable, Readable>): Promise<CliResult> {
  return new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
