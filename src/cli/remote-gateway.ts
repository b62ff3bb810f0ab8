import type { Config } from '../config.ts';
import { stringOption, UsageError, type ParsedArgs } from './args.ts';
import { settingsEnvironment } from './env-file.ts';

/** The options every command that talks to a gateway over HTTP takes. */
export const REMOTE_OPTIONS = ['url', 'api-key'] as const;

/** A gateway spoken to over its HTTP API, perhaps on another machine, as one merchant (by its secret key). */
export interface RemoteGateway {
  url: string;
  apiKey: string;
}

/**
 * Where the gateway is and whose key to use: `--url` and `--api-key`, else `LIPIRA_URL` and
 * `LIPIRA_API_KEY` from the environment or the `.env` file; the address defaults to this
 * machine's gateway (`PUBLIC_BASE_URL`, or `http://HOST:PORT`).
 */
export function remoteGateway(
  args: ParsedArgs,
  config: Pick<Config, 'publicBaseUrl'>,
  env: Record<string, string | undefined> = settingsEnvironment(),
): RemoteGateway {
  const url = (stringOption(args, 'url') ?? env.LIPIRA_URL ?? config.publicBaseUrl).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`the gateway URL must start with http:// or https:// (got "${url}")`);
  const apiKey = stringOption(args, 'api-key') ?? env.LIPIRA_API_KEY;
  if (!apiKey) throw new UsageError('a secret key is needed: --api-key, or LIPIRA_API_KEY in the environment or .env');
  return { url, apiKey };
}

/** The gateway refused a request (its envelope's message), or could not be reached. */
export class GatewayError extends Error {
  constructor(
    message: string,
    /** The HTTP status; null when no answer came. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** `{status, message, data}` (docs/integrate/api-reference.md#envelope). */
export interface Envelope<T> {
  status: string;
  message: unknown;
  data: T;
}

const TIMEOUT_MS = 30_000;

/**
 * Sends one API request with the secret key and answers the parsed JSON (the envelope, for every
 * route but the card charge's flat answer); an error answer throws a `GatewayError` saying what
 * the gateway said, e.g. `POST /refunds: 400 amount: The amount may not be greater than 1000.`.
 */
export async function askGateway<T = Envelope<Record<string, unknown>>>(
  gateway: RemoteGateway,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${gateway.apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(gateway.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new GatewayError(`cannot reach the gateway at ${gateway.url} (${cause})`, null);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError(`${method} ${path}: ${response.status}, not JSON: ${text.slice(0, 200)}`, response.status);
  }
  if (!response.ok)
    throw new GatewayError(`${method} ${path}: ${response.status} ${messageOf(parsed)}`, response.status);
  return parsed as T;
}

/** An error envelope's message: a sentence, or each field's messages. */
function messageOf(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  if (message && typeof message === 'object')
    return Object.entries(message as Record<string, unknown>)
      .map(([field, texts]) => `${field}: ${Array.isArray(texts) ? texts.join(' ') : String(texts)}`)
      .join('; ');
  return 'no message';
}
