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
export async function lipira(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  input?: string,
): Promise<CliResult> {
  const own = cwd === undefined ? temporaryFolder('lipira-cli-') : null;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: cwd ?? own!.dir,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(input ?? '');
  let overran = false;
  const limit = setTimeout(() => {
    overran = true;
    child.kill('SIGKILL');
  }, COMMAND_LIMIT_MS);
  try {
    const result = await outputOf(child);
    if (overran)
      throw new Error(
        `lipira ${args.join(' ')} ran past ${COMMAND_LIMIT_MS / 1000} s and was killed:\n${result.stdout}${result.stderr}`,
      );
    return result;
  } finally {
    clearTimeout(limit);
    own?.remove();
  }
}

/**
 * Longest a command run by `lipira()` may take before it is killed and its call fails: under the
 * test runner's limit for a whole file, so that a command that never ends (a supervisor restarting
 * workers for ever, say) fails its test instead of outliving it as a stray process.
 */
const COMMAND_LIMIT_MS = 240_000;

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
