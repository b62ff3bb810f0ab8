/** A command line error: printed as one line, exit status 2. */
export class UsageError extends Error {}

export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string | true>;
}

/**
 * `--name value`, `--name=value` and bare boolean switches. `booleans` lists the switches that
 * take no value; every other option needs one. Unknown options are refused.
 */
export function parseArgs(argv: string[], valued: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = splitOnce(arg.slice(2), '=');
    if (booleans.includes(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      options.set(name, true);
    } else if (valued.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, options };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function requiredOption(args: ParsedArgs, name: string): string {
  const value = stringOption(args, name);
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function noMorePositionals(args: ParsedArgs, expected: number): void {
  if (args.positionals.length > expected) throw new UsageError(`unexpected argument "${args.positionals[expected]}"`);
}
