import { SETTINGS, type Setting } from './settings.ts';

/** A table cell: a pipe would end it early. */
const cell = (markdown: string) => markdown.replaceAll('|', '\\|');

function defaultCell(setting: Setting): string {
  if (setting.defaultShown !== undefined) return `\`${setting.defaultShown}\``;
  return setting.default === null ? '(unset)' : `\`${setting.default}\``;
}

/** docs/operate/configuration.md, as `npm run docs:settings` writes it from the settings table. */
export function settingsReference(): string {
  const rows = (SETTINGS as readonly Setting[]).map(
    (setting) =>
      `| \`${setting.variable}\` | ${defaultCell(setting)} | ${setting.secret ? 'yes' : ''} | ${cell(setting.meaning)} |`,
  );
  return [
    '# Configuration',
    '',
    '<!-- Made by `lipira config --markdown` (`npm run docs:settings` writes it here) from src/settings/settings.ts: change that table, then run it. -->',
    '',
    'Every setting is an environment variable, read and checked once at start; a bad value stops the',
    'process with a message naming the variable. An empty value means the default. `lipira config`',
    'prints the values in effect, in this order, written as below; a secret is shown as `****`, and',
    'so are the password and secret-looking query parameters inside a URL.',
    '',
    '`lipira serve` (`npm start`) and every other `lipira` command also read a `.env` file in the',
    'working directory, one `NAME=value` a line (`#` starts a comment; a value in quotes may hold',
    'spaces and go on over lines), so that the gateway and the commands run beside it agree on the',
    "port, the database and the rest. A variable set in the environment wins over the file's, even",
    'set empty (which means the default). A line that is not `NAME=value`, or a quote never closed,',
    'stops the command with the file and line number. `.env` is in `.gitignore`: it often holds secrets.',
    '',
    '| Variable | Default | Secret | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
