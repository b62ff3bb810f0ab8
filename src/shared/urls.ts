/**
 * A host as the URL parser writes it (lowercased, IDNs in punycode, IPv4 in dotted decimal,
 * IPv6 compressed in brackets) that is made only of what DNS names and IP literals use. WHATWG
 * URL accepts far more in a host (`;`, `,`, `'`, `*`, …), and an origin carrying those would
 * change the meaning of a header it is put into (a Content-Security-Policy above all).
 */
const HOST = String.raw`(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:]+\])`;
const PLAIN_HOST = new RegExp(`^${HOST}$`);
/** An origin as it may go into a header: `http(s)://host[:port]` with a plain host. */
const PLAIN_ORIGIN = new RegExp(`^https?://${HOST}(?::\\d{1,5})?$`);

/** An absolute http(s) URL with a plain host: what merchants may give as callback, return, logo or webhook URL. */
export function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && PLAIN_HOST.test(url.hostname);
  } catch {
    return false;
  }
}

/** Whether `origin` is exactly `http(s)://host[:port]` with a plain host, fit to be put into a header as it is. */
export function isPlainOrigin(origin: string): boolean {
  return PLAIN_ORIGIN.test(origin);
}

/** Whether `url` is served over TLS: browsers are then told to come back over https only, and cookies carry Secure. */
export function isHttps(url: string): boolean {
  return url.startsWith('https:');
}

/** `url` with `params` set on it, keeping whatever query it already had. */
export function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}
