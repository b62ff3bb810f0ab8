import { setTimeout as sleep } from 'node:timers/promises';

/** One Server-Sent Events message: its `id` (the stream's cursor), `event` and `data`. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** The gateway refused the stream for good (bad key, live key refused): reconnecting would not help. */
export class StreamRefused extends Error {}

export interface StreamOptions {
  url: string;
  apiKey: string;
  signal: AbortSignal;
  onMessage(message: SseMessage): void;
  /** Told when the stream opens (again) and when it drops, with why and the wait before trying again. */
  onConnected(again: boolean): void;
  onDropped(reason: string, retryInMs: number): void;
}

/** Refusals that pass: a request too slow to arrive, a rate limit. */
const PASSING = new Set([408, 429]);
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/**
 * The gateway sends a heartbeat every 15 s: hearing nothing for this long means the connection
 * died without closing (a laptop's sleep, a dropped network), which TCP may not notice for minutes.
 */
const SILENCE_MS = 45_000;

/**
 * Reads the gateway's event stream until `signal` aborts, reconnecting after every drop with a
 * growing pause and the last event's id as `Last-Event-ID`, so that the gateway replays what
 * happened meanwhile. A refusal (4xx) ends it with StreamRefused. A gateway shutting down
 * answers 503 until it has gone: the pause grows through it.
 */
export async function followEventStream(options: StreamOptions): Promise<void> {
  let lastEventId: string | undefined;
  let retryMs = FIRST_RETRY_MS;
  let connectedBefore = false;
  while (!options.signal.aborted) {
    let reason: string;
    try {
      await readOnce(
        options,
        lastEventId,
        (message) => {
          if (message.id !== undefined) lastEventId = message.id;
          options.onMessage(message);
        },
        () => {
          options.onConnected(connectedBefore);
          connectedBefore = true;
          retryMs = FIRST_RETRY_MS;
        },
      );
      reason = 'the gateway ended the stream';
    } catch (error) {
      if (error instanceof StreamRefused) throw error;
      if (options.signal.aborted) return;
      reason = describe(error);
    }
    if (options.signal.aborted) return;
    options.onDropped(reason, retryMs);
    await sleep(retryMs, undefined, { signal: options.signal }).catch(() => undefined);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}

async function readOnce(
  { url, apiKey, signal }: StreamOptions,
  lastEventId: string | undefined,
  onMessage: (message: SseMessage) => void,
  onOpen: () => void,
): Promise<void> {
  const silence = new AbortController();
  const both = AbortSignal.any([signal, silence.signal]);
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${url}/events/stream`, { headers, signal: both });
  if (response.status >= 400 && response.status < 500 && !PASSING.has(response.status))
    throw new StreamRefused(await refusal(response));
  if (response.status !== 200 || !response.body) throw new Error(`the gateway answered ${response.status}`);
  onOpen();
  let timer = setTimeout(() => silence.abort(), SILENCE_MS);
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      clearTimeout(timer);
      timer = setTimeout(() => silence.abort(), SILENCE_MS);
      buffer += decoder.decode(chunk as Uint8Array, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const message = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message) onMessage(message);
      }
    }
  } catch (error) {
    if (silence.signal.aborted && !signal.aborted) throw new Error('the gateway went silent', { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** One block of lines of the stream; null for comments alone (heartbeats) and `retry:`. */
function parseBlock(block: string): SseMessage | null {
  const message: SseMessage = { id: undefined, event: undefined, data: '' };
  let hasData = false;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') message.id = value;
    else if (field === 'event') message.event = value;
    else if (field === 'data') {
      message.data = hasData ? `${message.data}\n${value}` : value;
      hasData = true;
    }
  }
  return hasData ? message : null;
}

/** What the gateway said when it refused: its envelope's message, else the status. */
async function refusal(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return `the gateway refused the stream (${response.status}): ${body.message}`;
  } catch {
    // Not the envelope: a proxy's page, say.
  }
  return `the gateway refused the stream (${response.status})`;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
