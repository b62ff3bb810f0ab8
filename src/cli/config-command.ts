import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs } from './args.ts';
import { print, printJson } from './output.ts';

const MASK = '****';

/** A URL with its password, if any, replaced by the mask. */
function maskUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = MASK;
    return parsed.toString();
  } catch {
    return url;
  }
}

/** `lipira config`: the effective configuration after defaults and checks, secrets masked. */
export async function configCommand(argv: string[], config: Config): Promise<number> {
  const args = parseArgs(argv, [], ['json']);
  noMorePositionals(args, 0);
  const effective = {
    ...config,
    databaseUrl: config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl : maskUrl(config.databaseUrl),
    smtpUrl: maskUrl(config.smtpUrl),
    redisUrl: maskUrl(config.redisUrl),
    metricsToken: config.metricsToken === null ? null : MASK,
  };
  if (args.options.has('json')) printJson(effective);
  else for (const [name, value] of Object.entries(effective)) print(`${name.padEnd(28)} ${JSON.stringify(value)}`);
  return 0;
}
