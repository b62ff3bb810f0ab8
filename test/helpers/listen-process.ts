import { spawn } from 'node:child_process';
import { BIN } from './cli.ts';
import { temporaryFolder } from './temp-folders.ts';

/** A real `lipira listen` child process, read line by line as it prints. */
export interface ListenProcess {
  stdout: string[];
  stderr: string[];
  /** Resolves with the first line of stdout (or stderr) matching `pattern` once it is printed. */
  waitForLine(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<string>;
  /** Resolves once stdout holds `count` lines matching `pattern`. */
  waitForLines(pattern: RegExp, count: number, timeoutMs?: number): Promise<string[]>;
  /** Ctrl-C; resolves with its exit code. */
  interrupt(): Promise<number | null>;
  /** For cleanup after a failure: kills it unless it has gone. */
  dispose(): void;
}

/** Starts `lipira listen …` in a temporary folder of its own, with the given environment additions. */
export function startListen(args: string[], env: Record<string, string> = {}): ListenProcess {
  const folder = temporaryFolder('lipira-listen-');
  const child = spawn(process.execPath, [BIN, 'listen', ...args], {
    cwd: folder.dir,
    env: { ...process.env, LIPIRA_API_KEY: '', LIPIRA_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  for (const name of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[name].on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop()!;
      lines[name].push(...parts);
    });
  }
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      folder.remove();
      resolve(code);
    }),
  );
  const until = async <T>(found: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    for (let waited = 0; ; waited += 25) {
      const value = found();
      if (value !== undefined) return value;
      if (waited > timeoutMs)
        throw new Error(
          `${what} not printed; stdout:\n${lines.stdout.join('\n')}\nstderr:\n${lines.stderr.join('\n')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    ...lines,
    waitForLine: (pattern, stream = 'stdout', timeoutMs = 20_000) =>
      until(() => lines[stream].find((line) => pattern.test(line)), timeoutMs, String(pattern)),
    waitForLines: (pattern, count, timeoutMs = 20_000) =>
      until(
        () => {
          const matching = lines.stdout.filter((line) => pattern.test(line));
          return matching.length >= count ? matching : undefined;
        },
        timeoutMs,
        `${count} lines matching ${String(pattern)}`,
      ),
    interrupt() {
      child.kill('SIGINT');
      return exited;
    },
    dispose() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
