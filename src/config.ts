import { ConfigError } from './settings/config-error.ts';
import { SETTINGS, type Setting } from './settings/settings.ts';

export { ConfigError } from './settings/config-error.ts';
export { parseFeePercent } from './settings/kinds.ts';
export type { ConnectorName, LiveRoutes } from './settings/live-routes.ts';

/** Every setting Lipira reads, parsed and checked once at start: one property per row of src/settings/settings.ts. */
export type Config = {
  [Entry in (typeof SETTINGS)[number] as Entry['field']]: Entry extends Setting<string, infer T> ? T : never;
};

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const parsed: Record<string, unknown> = {};
  for (const { field, variable, kind, default: fallback } of SETTINGS as readonly Setting[]) {
    parsed[field] = kind.parse(env[variable]?.trim() || fallback, variable, parsed);
  }
  const config = parsed as Config;
  checkRulesBetweenSettings(config);
  return config;
}

/** The rules between settings: scheduled backups need SQLite; a route to a connector whose credentials are missing refuses to start. */
function checkRulesBetweenSettings(config: Config): void {
  if (config.backupDir !== null && !config.databaseUrl.startsWith('sqlite:'))
    throw new ConfigError(
      'BACKUP_DIR',
      "is for SQLite only: back a PostgreSQL database up with the server's own tools, `lipira backup FILE` (pg_dump) from cron or WAL archiving (docs/operate/backups.md)",
    );
  if (config.liveSyncMaxMs < config.liveSyncFirstMs)
    throw new ConfigError('LIVE_SYNC_MAX', 'must not be shorter than LIVE_SYNC_FIRST');
  const used = new Set(Object.values(config.liveRoutes));
  const need = (variable: string, value: string | null, why: string) => {
    if (value === null) throw new ConfigError(variable, `must be set: ${why}`);
  };
  if (used.has('airtel')) {
    need('AIRTEL_CLIENT_ID', config.airtelClientId, 'LIVE_ROUTES uses the airtel connector');
    need('AIRTEL_CLIENT_SECRET', config.airtelClientSecret, 'LIVE_ROUTES uses the airtel connector');
  }
  if (config.liveRoutes.payout === 'airtel') {
    need('AIRTEL_DISBURSEMENT_PIN', config.airtelDisbursementPin, 'payouts go through Airtel (payout:airtel)');
    need(
      'AIRTEL_PUBLIC_KEY',
      config.airtelPublicKey,
      'payouts go through Airtel (payout:airtel), whose PIN is encrypted with it',
    );
  }
  if (config.airtelPublicKey !== null && !/^-----BEGIN (RSA )?PUBLIC KEY-----/.test(config.airtelPublicKey)) {
    throw new ConfigError('AIRTEL_PUBLIC_KEY', 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)');
  }
  if (used.has('paychangu'))
    need(
      'PAYCHANGU_UPSTREAM_SECRET_KEY',
      config.paychanguUpstreamSecretKey,
      'LIVE_ROUTES uses the paychangu connector',
    );
}
