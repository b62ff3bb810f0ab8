/**
 * Runs the shell commands our documentation tells people to paste (README's walk-through, the
 * first start's banner), as a shell would read them, so that what they say cannot drift from what
 * the gateway does. Only what those commands use: quoting, `\` line continuations, `$VARIABLES`,
 * `NAME=value` prefixes, comments, and curl's -s, -X, -H and -d.
 */

/** Whether `text` is a whole command: no trailing `\` asking for the next line, no quote left open. */
export function commandComplete(text: string): boolean {
  return !text.endsWith('\\') && !quoteOpen(text);
}

function quoteOpen(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\') i++;
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return false;
  }
  return quote !== null;
}

/** The words of a command line after quoting and `$NAME` expansion; `#` starts a comment. */
export function shellWords(command: string, variables: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const add = (text: string) => (word = (word ?? '') + text);
  const expand = (text: string) =>
    text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, name: string) => {
      if (!(name in variables)) throw new Error(`$${name} is used before it is set: ${command}`);
      return variables[name]!;
    });
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === '\\' && command[i + 1] === '\n') {
      i++;
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (ch === '#' && word === null) {
      break;
    } else if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      add(command.slice(i + 1, end));
      i = end;
    } else if (ch === '"') {
      const end = command.indexOf('"', i + 1);
      add(expand(command.slice(i + 1, end)));
      i = end;
    } else {
      const run = /^[^\s'"\\#]+/.exec(command.slice(i))?.[0] ?? ch;
      add(expand(run));
      i += run.length - 1;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

export interface CurlAnswer {
  status: number;
  body: string;
}

/** What `curl` with these words fetches (-s, -X, -H and -d; the rest refused), answered in full. */
export async function curl(words: string[]): Promise<CurlAnswer> {
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${words.join(' ')}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers = new Headers();
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-s') continue;
    if (word === '-X') method = words[++i];
    else if (word === '-H') {
      const header = words[++i]!;
      headers.set(header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 1).trim());
    } else if (word === '-d') body = words[++i];
    else if (!word.startsWith('-') && url === undefined) url = word;
    else throw new Error(`curl ${word} is not understood here`);
  }
  if (!url) throw new Error(`curl without a URL: ${words.join(' ')}`);
  const response = await fetch(url, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Whether `actual` is what the documentation shows with `shown`: the same text where `…` may
 * stand for anything, whitespace aside (shown output is wrapped to fit the page).
 */
export function matchesShown(shown: string, actual: string): boolean {
  const squeeze = (text: string) => text.replace(/\s+/g, '');
  const pattern = squeeze(shown)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`, 's').test(squeeze(actual));
}
