import type { Answer, WireRequest } from './paychangu-wire.ts';

export interface PaychanguEndpoint {
  url: string;
  secretKey: string;
  timeoutMs: number;
}

/**
 * Sends one request to PayChangu, once. Whatever goes wrong on the way (refused connection,
 * timeout, a body that is not JSON) is an answer too, never a throw: the caller reads it as
 * pending. Notes name what happened, never the key.
 */
export async function exchange(endpoint: PaychanguEndpoint, request: WireRequest): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(new URL(request.path, endpoint.url), {
      method: request.method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${endpoint.secretKey}`,
        ...(request.body ? { 'content-type': 'application/json' } : {}),
      },
      body: request.body ? JSON.stringify(request.body) : undefined,
      signal: AbortSignal.timeout(endpoint.timeoutMs),
      redirect: 'manual',
    });
  } catch (error) {
    return { status: 'none', note: unreachableNote(error, endpoint.timeoutMs) };
  }
  try {
    return { status: response.status, body: parseJson(await response.text()) };
  } catch (error) {
    return { status: 'none', note: unreachableNote(error, endpoint.timeoutMs) };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function unreachableNote(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `PayChangu did not answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return `PayChangu could not be reached${typeof cause?.code === 'string' ? ` (${cause.code})` : ''}`;
}
