import type { Config } from '../config.ts';
import { noMorePositionals, parseArgs } from './args.ts';
import { print, printJson } from './output.ts';

const MASK = '****';

/** Query parameters that carry secrets in connection URLs: `password`, `sslpassword`, `pass`, `api_key`, `auth_token`, … */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|credential|sign/i;

/** A URL with its password, and the value of every secret-looking query parameter, replaced by the mask. */
function maskUrl(url: string | null): string | null {
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL we can take apart: only its scheme is shown.
    return `${url.slice(0, url.indexOf(':') + 1)}${MASK}`;
  }
  if (parsed.password) parsed.password = MASK;
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, MASK);
  }
  return parsed.toString();
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
