/** The CLI's one way to talk: results on stdout, problems on stderr. */
export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

export function printError(text: string): void {
  process.stderr.write(`lipira: ${text}\n`);
}

/**
 * When whoever reads our output stops reading (`lipira … | head -1` once `head` has its line),
 * the command ends at once and without a word, as a program killed by SIGPIPE does: Node ignores
 * that signal and reports EPIPE, which would otherwise end in a stack trace. The status is the
 * one the command already chose, else 0: the reader took what it wanted, and under `set -o
 * pipefail` anything else would fail a script's `lipira merchant list | head -1` for nothing.
 */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}
