import http from 'node:http';
import https from 'node:https';
import {
  addressKind,
  guardedLookup,
  refusalReason,
  RefusedDestination,
  type AddressKind,
  type DestinationPolicy,
} from './address-guard.ts';

export interface SendOutcome {
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KiB of the answer. */
  responseBody: string | null;
  /** Where a redirect answer pointed (never followed). */
  location: string | null;
  error: string | null;
  /** From a `Retry-After` header, when the receiver gave one. */
  retryAfterMs: number | null;
  /** What the address that answered is: only a public one's words may be shown to the merchant. */
  answeredFrom: AddressKind | null;
}

export interface SendOptions extends DestinationPolicy {
  timeoutMs: number;
}

const RESPONSE_KEEP_BYTES = 1024;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * POSTs a webhook once: only to an address the policy allows (checked on an IP literal before
 * connecting, on every address a name resolves to, and on the socket once connected), no
 * redirects followed, bounded in time, the answer's start kept.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const target = new URL(url);
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (addressKind(literal) !== null) {
      const reason = refusalReason(literal, options);
      if (reason) throw new RefusedDestination(`Refused: ${reason}`);
    }
    const answer = await send(target, body, headers, options);
    const redirect = answer.statusCode >= 300 && answer.statusCode < 400;
    return {
      statusCode: answer.statusCode,
      latencyMs: elapsed(),
      responseBody: answer.body,
      location: redirect ? (answer.location ?? null) : null,
      error: redirect ? 'Redirect not followed' : null,
      // A Retry-After date is the receiver's wall clock, so the wait is counted from ours.
      retryAfterMs: parseRetryAfter(answer.retryAfter, Date.now()),
      answeredFrom: answer.from,
    };
  } catch (error) {
    return {
      statusCode: null,
      latencyMs: elapsed(),
      responseBody: null,
      location: null,
      error: error instanceof Error ? error.message : String(error),
      retryAfterMs: null,
      answeredFrom: null,
    };
  }
}

interface Answer {
  statusCode: number;
  body: string;
  location: string | undefined;
  retryAfter: string | undefined;
  from: AddressKind | null;
}

/** What every webhook request says of itself besides its signatures; `lipira listen` sends the same. */
export const WEBHOOK_CONTENT_HEADERS = {
  'content-type': 'application/json',
  'user-agent': 'Lipira-Webhooks/1',
} as const;

function send(target: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'POST',
      headers: { ...headers, ...WEBHOOK_CONTENT_HEADERS, 'content-length': Buffer.byteLength(body) },
      lookup: guardedLookup(options),
      agent: false,
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`Timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    let from: AddressKind | null = null;
    request.on('socket', (socket) => {
      // Belt and braces: whatever resolved, the address connected to must be one the policy allows.
      socket.once('connect', () => {
        const remote = socket.remoteAddress ?? '';
        const reason = refusalReason(remote, options);
        if (reason) request.destroy(new RefusedDestination(`Refused: ${reason}`));
        else from = addressKind(remote);
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_KEEP_BYTES) chunks.push(chunk.subarray(0, RESPONSE_KEEP_BYTES - kept));
        kept += chunk.length;
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          statusCode: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          location: response.headers.location,
          retryAfter: response.headers['retry-after'],
          from,
        });
      });
      response.on('error', reject);
    });
    request.end(body);
  });
}

/** `Retry-After` as seconds or as an HTTP date; capped so a receiver cannot park a delivery forever. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}
