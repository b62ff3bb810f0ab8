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
