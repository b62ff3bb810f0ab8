import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs, UsageError } from './args.ts';
import { print, printJson } from './output.ts';
import { settingsReference } from '../settings/reference.ts';
import { SETTINGS, type Setting } from '../settings/settings.ts';

const MASK = '****';

/**
 * The effective configuration as variable → value, in the settings table's order, each shown as
 * one would write it and secrets masked. A value is null when the variable is unset and has no default.
 */
function effectiveSettings(config: Config): Record<string, string | null> {
  const values: Readonly<Record<string, unknown>> = config;
  return Object.fromEntries(
    (SETTINGS as readonly Setting[]).map(({ field, variable, kind, secret }) => {
      const value = values[field];
      return [variable, secret ? (value === null ? null : MASK) : kind.show(value)];
    }),
  );
}

/**
 * `lipira config`: the effective configuration after defaults and checks, by environment variable,
 * secrets masked; `--markdown`: the configuration reference (docs/operate/configuration.md) itself.
 */
export async function configCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, [], ['json', 'markdown']);
  noMorePositionals(args, 0);
  if (args.options.has('markdown') && args.options.has('json'))
    throw new UsageError('--json and --markdown cannot be given together');
  if (args.options.has('markdown')) {
    process.stdout.write(settingsReference());
    return 0;
  }
  const settings = effectiveSettings(config);
  if (args.options.has('json')) printJson(settings);
  else for (const [variable, value] of Object.entries(settings)) print(`${variable.padEnd(34)} ${value ?? '(unset)'}`);
  return 0;
}
