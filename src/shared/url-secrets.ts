const MASK = '****';

/**
 * Query parameters that carry secrets in connection and API URLs, by any part of their name:
 * `password`, `sslpassword`, `pass`, `pwd`, `api_key`, `apikey`, `access_token`, `client_secret`,
 * `X-Amz-Signature`, `sig`, `X-Amz-Credential`, `auth_token`, …
 */
const SECRET_PARAMETER = /pass|pwd|secret|token|key|auth|credential|sig/i;

/**
 * A URL setting as it may be printed or logged: its password and the value of every
 * secret-looking query parameter replaced by `****`. The user name stays: which login connects
 * is what one reads a connection URL to check, and alone it opens nothing. A URL with nothing to
 * hide is returned exactly as written, so that what is shown can be set again unchanged.
 */
export function maskUrlSecrets(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL we can take apart, so we cannot tell its secrets from the rest: only its scheme is shown.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '';
    return `${scheme}${MASK}`;
  }
  const secretParameters = [...new Set(parsed.searchParams.keys())].filter((name) => SECRET_PARAMETER.test(name));
  if (!parsed.password && secretParameters.length === 0) return url;
  if (parsed.password) parsed.password = MASK;
  for (const name of secretParameters) parsed.searchParams.set(name, MASK);
  return parsed.toString();
}
