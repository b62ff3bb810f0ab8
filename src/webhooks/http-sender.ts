import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { privateAddressReason, publicOnlyLookup, RefusedDestination } from './address-guard.ts';

export interface SendOutcome {
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KiB of the answer. */
  responseBody: string | null;
  error: string | null;
  /** From a `Retry-After` header, when the receiver gave one. */
  retryAfterMs: number | null;
}

export interface SendOptions {
  timeoutMs: number;
  /** Test-mode webhooks may go to localhost, where merchants develop; live ones never to a private address. */
  allowPrivate: boolean;
}

const RESPONSE_KEEP_BYTES = 1024;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** POSTs a webhook once: no redirects followed, bounded in time, the answer's start kept. */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const target = new URL(url);
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && net.isIP(literal)) {
      const reason = privateAddressReason(literal);
      if (reason) throw new RefusedDestination(`Refused: ${reason}`);
    }
    const answer = await send(target, body, headers, options);
    const redirect = answer.statusCode >= 300 && answer.statusCode < 400 ? `Redirect to ${answer.location ?? '(no location)'} not followed` : null;
    return { statusCode: answer.statusCode, latencyMs: elapsed(), responseBody: answer.body, error: redirect, retryAfterMs: parseRetryAfter(answer.retryAfter) };
  } catch (error) {
    return { statusCode: null, latencyMs: elapsed(), responseBody: null, error: error instanceof Error ? error.message : String(error), retryAfterMs: null };
  }
}

interface Answer {
  statusCode: number;
  body: string;
  location: string | undefined;
  retryAfter: string | undefined;
}

function send(target: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Lipira-Webhooks/1' },
      lookup: options.allowPrivate ? undefined : publicOnlyLookup,
      agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error(`Timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('socket', (socket) => {
      // Belt and braces: whatever resolved, the address connected to must be public in live mode.
      socket.once('connect', () => {
        const reason = !options.allowPrivate && socket.remoteAddress ? privateAddressReason(socket.remoteAddress) : null;
        if (reason) request.destroy(new RefusedDestination(`Refused: ${reason}`));
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
        });
      });
      response.on('error', reject);
    });
    request.end(body);
  });
}

/** `Retry-After` as seconds or as an HTTP date; capped so a receiver cannot park a delivery forever. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}
