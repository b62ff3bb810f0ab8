import type { Config } from '../config.ts';
import { isHttps } from '../shared/urls.ts';

/** A year, as browsers and the HSTS preload list expect at the least. */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/**
 * What every answer carries unless its route says otherwise (pages and assets set their own cache
 * policy over these). API answers hold payments, balances and keys' results: no cache, shared or
 * private, may keep them, and no browser may read one as anything but the JSON it says it is.
 * With an https PUBLIC_BASE_URL, browsers are told to come back over https only; the header is
 * sent over plain http too, where a proxy ends TLS in front of us (browsers ignore it on http
 * answers). It leaves out includeSubDomains (names under the gateway's host are not the gateway's
 * to speak for) and preload (a listing takes months to undo).
 */
export function defaultResponseHeaders(config: Config): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  if (isHttps(config.publicBaseUrl)) headers['strict-transport-security'] = `max-age=${HSTS_MAX_AGE_SECONDS}`;
  return headers;
}
