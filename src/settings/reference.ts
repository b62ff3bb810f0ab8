import { SETTINGS, type Setting } from './settings.ts';

/** A table cell: a pipe would end it early. */
const cell = (markdown: string) => markdown.replaceAll('|', '\\|');

function defaultCell(setting: Setting): string {
  if (setting.defaultShown !== undefined) return `\`${setting.defaultShown}\``;
  return setting.default === null ? '(unset)' : `\`${setting.default}\``;
}

/** docs/settings.md, as `npm run docs:settings` writes it from the settings table. */
export function settingsReference(): string {
  const rows = (SETTINGS as readonly Setting[]).map(
    (setting) =>
      `| \`${setting.variable}\` | ${defaultCell(setting)} | ${setting.secret ? 'yes' : ''} | ${cell(setting.meaning)} |`,
  );
  return [
    '# Settings',
    '',
    '<!-- Made by `npm run docs:settings` from src/settings/settings.ts: change that table, then run it. -->',
    '',
    'Every setting is an environment variable (or a line of `.env`: README.md, Configuration), read',
    'and checked once at start; a bad value stops the process with a message naming the variable.',
    'An empty value means the default. `lipira config` prints the values in effect, in this order,',
    'written as below; a secret is shown as `****`, and so are the password and secret-looking query',
    'parameters inside a URL.',
    '',
    '| Variable | Default | Secret | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
