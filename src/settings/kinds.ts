import path from 'node:path';
import { parseDuration } from '../shared/time.ts';
import { maskUrlSecrets } from '../shared/url-secrets.ts';
import { ConfigError } from './config-error.ts';

/** How a setting's text becomes its value, and how `lipira config` writes the value back. */
export interface Kind<T> {
  /**
   * `raw` is the variable's value trimmed, or the setting's default when the variable is unset or
   * empty (null when it has none); `earlier` holds the settings above it in the table, by field.
   */
  parse(raw: string | null, variable: string, earlier: Readonly<Record<string, unknown>>): T;
  /** The value as one would write it in the environment; null when unset. */
  show(value: T): string | null;
}

const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * A duration as the settings reference writes it (`250ms`, `5s`, `24h`, `7d`): the largest whole
 * unit, but a single day as `24h`. Reads back to the same milliseconds.
 */
export function showDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of UNITS) {
    if (ms % size === 0 && !(unit === 'd' && ms === size)) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

const maskedUrl = (url: string | null) => (url === null ? null : maskUrlSecrets(url));

/** Free text, as written. */
export const text: Kind<string> = { parse: (raw) => raw ?? '', show: String };

/** Free text that may be left unset. */
export const optionalText: Kind<string | null> = { parse: (raw) => raw, show: (value) => value };

/** Text whose value `lipira config` does not print: it says only that one is set. */
export const pemPublicKey: Kind<string | null> = {
  parse: (raw) => raw,
  show: (pem) => (pem === null ? null : '(PEM public key)'),
};

export const integer = (min: number, max: number): Kind<number> => ({
  parse(raw, variable) {
    if (raw === null || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(variable, `must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return Number(raw);
  },
  show: String,
});

export const oneOf = (choices: readonly string[]): Kind<string> => ({
  parse(raw, variable) {
    if (raw === null || !choices.includes(raw)) throw new ConfigError(variable, `must be one of ${choices.join(', ')}`);
    return raw;
  },
  show: String,
});

/** Milliseconds, written as `30s`, `15m`, `24h` or `7d`; `0` only where `zeroAllowed`. */
export const duration = (zeroAllowed = false): Kind<number> => ({
  parse(raw, variable) {
    const ms = parseDuration(raw ?? '');
    if (ms === null || (ms === 0 && !zeroAllowed))
      throw new ConfigError(variable, `must be a duration such as 30s, 15m, 24h or 7d (got "${raw}")`);
    return ms;
  },
  show: showDuration,
});

/** `immediate`, or a duration as `duration()` reads it: how often something runs, when it does not run at once. */
export const immediateOrDuration: Kind<'immediate' | number> = {
  parse(raw, variable) {
    if (raw === 'immediate') return raw;
    const ms = parseDuration(raw ?? '');
    if (ms === null || ms === 0)
      throw new ConfigError(variable, `must be immediate, or a duration such as 30s, 15m, 24h or 7d (got "${raw}")`);
    return ms;
  },
  show: (value) => (value === 'immediate' ? value : showDuration(value)),
};

/** A comma-separated list of delays, e.g. `5s,5m,30m`: when each retry follows the first try. */
export const schedule: Kind<number[]> = {
  parse(raw, variable) {
    const delays = (raw ?? '').split(',').map((part) => parseDuration(part.trim()));
    if (delays.some((ms) => ms === null))
      throw new ConfigError(variable, `must be a comma-separated list of durations such as 5s,5m,30m (got "${raw}")`);
    return delays as number[];
  },
  show: (delays) => delays.map(showDuration).join(','),
};

/** `on` or `off`. */
export const onOff: Kind<boolean> = {
  parse(raw, variable) {
    if (raw !== 'on' && raw !== 'off') throw new ConfigError(variable, `must be on or off (got "${raw}")`);
    return raw === 'on';
  },
  show: (value) => (value ? 'on' : 'off'),
};

/** Percent with at most two decimals, from 0 to 100, stored as basis points. */
export function parseFeePercent(raw: string): number | null {
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(raw)) return null;
  const basisPoints = Math.round(Number(raw) * 100);
  return basisPoints <= 10_000 ? basisPoints : null;
}

export const feePercent: Kind<number> = {
  parse(raw, variable) {
    const basisPoints = parseFeePercent(raw ?? '');
    if (basisPoints === null) throw new ConfigError(variable, `must be a percentage from 0 to 100 (got "${raw}")`);
    return basisPoints;
  },
  show: (basisPoints) => String(basisPoints / 100),
};

/** An IANA time zone this Node knows (`Africa/Blantyre`, `UTC`), in its canonical spelling. */
export const timeZone: Kind<string> = {
  parse(raw, variable) {
    try {
      return new Intl.DateTimeFormat('en-GB', { timeZone: raw ?? '' }).resolvedOptions().timeZone;
    } catch {
      throw new ConfigError(variable, `must be a time zone such as Africa/Blantyre or UTC (got "${raw}")`);
    }
  },
  show: String,
};

/** A file or folder path, resolved against the working directory. */
export const folder: Kind<string> = { parse: (raw) => path.resolve(raw ?? ''), show: String };

/** A folder path as `folder` reads it, or unset: what it is for is off. */
export const optionalFolder: Kind<string | null> = {
  parse: (raw) => (raw === null ? null : path.resolve(raw)),
  show: (value) => value,
};

/** An HTTP header's name, lowercased; unset when left empty. */
export const headerName: Kind<string | null> = {
  parse(raw, variable) {
    if (raw === null) return null;
    if (!/^[A-Za-z0-9-]+$/.test(raw))
      throw new ConfigError(variable, `must be a header name such as x-forwarded-for (got "${raw}")`);
    return raw.toLowerCase();
  },
  show: (header) => header,
};

/** A server's URL that may carry credentials (`lipira config` masks them); unset when left empty. */
export const serverUrl = (pattern: RegExp, example: string): Kind<string | null> => ({
  parse(raw, variable) {
    if (raw === null) return null;
    if (!pattern.test(raw)) throw new ConfigError(variable, `must look like ${example}`);
    return raw;
  },
  show: maskedUrl,
});

/** An upstream's absolute http(s) URL, without a trailing slash. */
export const httpUrl: Kind<string> = {
  parse(raw, variable) {
    const value = raw ?? '';
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(variable, `must be an absolute http(s) URL (got "${maskUrlSecrets(value)}")`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(variable, `must use http or https (got "${maskUrlSecrets(value)}")`);
    // fetch refuses such a URL, and its error repeats it, password and all, into the charge's notes.
    if (url.username || url.password)
      throw new ConfigError(variable, 'must not carry a user name or password: give credentials in their own settings');
    return value.replace(/\/+$/, '');
  },
  show: maskedUrl,
};

/** The gateway's public origin (and path), without a trailing slash; unset, the address it listens on. */
export const publicBaseUrl: Kind<string> = {
  parse(raw, variable, earlier) {
    if (raw === null) {
      const host = String(earlier.host);
      return `http://${host.includes(':') ? `[${host}]` : host}:${String(earlier.port)}`;
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(variable, `must be an absolute http(s) URL (got "${raw}")`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError(variable, `must use http or https (got "${raw}")`);
    }
    return url.origin + url.pathname.replace(/\/+$/, '');
  },
  show: maskedUrl,
};

/** `sqlite:PATH` (relative paths resolve against the working directory) or a postgres URL. */
export const databaseUrl: Kind<string> = {
  parse(raw, variable) {
    const value = raw ?? '';
    if (value.startsWith('sqlite:')) {
      const file = value.slice('sqlite:'.length);
      if (!file) throw new ConfigError(variable, 'needs a file path after "sqlite:"');
      return `sqlite:${path.resolve(file)}`;
    }
    if (/^postgres(ql)?:\/\//.test(value)) {
      try {
        const url = new URL(value);
        if (url.pathname.length <= 1) throw new Error('no database name');
      } catch {
        throw new ConfigError(variable, 'must be postgres://USER@HOST:PORT/DATABASE');
      }
      return value;
    }
    throw new ConfigError(variable, `must start with "sqlite:" or "postgres://" (got "${maskUrlSecrets(value)}")`);
  },
  show: (url) => (url.startsWith('sqlite:') ? url : maskUrlSecrets(url)),
};
