import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** The settings file every command reads from its working directory. */
const ENV_FILE = '.env';

/** A `.env` file that cannot be read as settings: its path and line say where. */
export class EnvFileError extends Error {}

type Env = Record<string, string | undefined>;

/**
 * The environment the settings are read from: the process's own variables, and those of `.env`
 * in `dir` that the process does not have. A variable the process has wins even when empty, as
 * with Node's `--env-file`: whoever sets one on the command line means it.
 */
export function settingsEnvironment(dir: string = process.cwd(), env: Env = process.env): Env {
  const file = path.resolve(dir, ENV_FILE);
  const text = readSettingsFile(file);
  if (text === null) return env;
  checkLines(file, text);
  return { ...parseEnv(text), ...env };
}

function readSettingsFile(file: string): string | null {
  try {
    // An editor's byte order mark would otherwise be part of the first name.
    return fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EnvFileError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][\w.-]*\s*=\s*(.*)$/;
const QUOTES = ['"', "'", '`'];

/**
 * Refuses what Node's parser would read as something else without a word: a line that is not
 * `NAME=value` becomes part of the next line's name, a quote never closed is kept in the value,
 * and text after a closing quote is dropped. The line is never repeated: it may hold a secret.
 */
function checkLines(file: string, text: string): void {
  const lines = text.split(/\r?\n/);
  const refuse = (index: number, problem: string) => new EnvFileError(`${file} line ${index + 1}: ${problem}`);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const value = ASSIGNMENT.exec(line)?.[1];
    if (value === undefined) throw refuse(index, 'expected NAME=value, a # comment or an empty line');
    const quote = value[0];
    if (quote === undefined || !QUOTES.includes(quote)) continue;
    // A quoted value may go on over the following lines, up to its closing quote.
    const opened = index;
    let rest = value.slice(1);
    while (!rest.includes(quote)) {
      if (++index === lines.length) throw refuse(opened, `the value's opening ${quote} is never closed`);
      rest = lines[index]!;
    }
    if (!/^\s*(#.*)?$/.test(rest.slice(rest.indexOf(quote) + 1)))
      throw refuse(index, `only a # comment may follow the value's closing ${quote}`);
  }
}
