import type { TokenCache } from './airtel-token.ts';

export interface AirtelEndpoint {
  apiUrl: string;
  country: string;
  currency: string;
  timeoutMs: number;
}

/**
 * How one call to Airtel went, before its body is read for meaning:
 * - `answered`: an HTTP answer (`body` undefined when it was not JSON);
 * - `lost`: sent, but no answer came (timeout, reset): Airtel may have taken it;
 * - `not_sent`: it never left, because no token could be had: Airtel cannot have taken it.
 */
export type HttpAnswer =
  | { kind: 'answered'; status: number; body: unknown }
  | { kind: 'lost'; note: string }
  | { kind: 'not_sent'; note: string };

export type AirtelCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<HttpAnswer>;

/**
 * Calls Airtel with a bearer token and the country and currency headers. A 401 means the token
 * was refused before the request was looked at, so that one call is made again, once, with a new
 * token; nothing else is ever sent twice.
 */
export function airtelCall(endpoint: AirtelEndpoint, tokens: TokenCache): AirtelCall {
  async function once(method: 'GET' | 'POST', path: string, body: unknown): Promise<HttpAnswer & { token?: string }> {
    let token: string;
    try {
      token = await tokens.bearer();
    } catch (error) {
      return { kind: 'not_sent', note: `no Airtel access token: ${describe(error)}` };
    }
    try {
      const response = await fetch(new URL(path, endpoint.apiUrl), {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          'X-Country': endpoint.country,
          'X-Currency': endpoint.currency,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(endpoint.timeoutMs),
      });
      return { kind: 'answered', status: response.status, body: parseJson(await response.text()), token };
    } catch (error) {
      return { kind: 'lost', note: `no answer from Airtel: ${describe(error)}` };
    }
  }

  return async (method, path, body) => {
    const first = await once(method, path, body);
    if (first.kind !== 'answered' || first.status !== 401 || !first.token) return first;
    tokens.reject(first.token);
    return once(method, path, body);
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error's name and message: fetch's own ("TimeoutError", "fetch failed" and its cause), never a request's contents. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}${cause}`;
}
