import { WEBHOOK_CONTENT_HEADERS } from '../webhooks/http-sender.ts';
import { signWebhook } from '../webhooks/signatures.ts';

/** An event as the stream sends it (as `GET /events/{id}` shows it). */
export interface StreamedEvent {
  id: string;
  type: string;
  mode: string;
  created_at: string;
  payload: Record<string, unknown>;
}

/**
 * Sends an event to the developer's endpoint as its webhook is sent: the same body (the stored
 * payload, which JSON text round-trips unchanged) and the same headers, signed by the project's
 * own `signWebhook` with the session's secret, so the merchant's `verifyWebhook` accepts it.
 * `webhook-id` is the event's id: a session's forward is no delivery of the merchant's. Answers
 * the line to print: time, type, id, the endpoint's answer (or why there was none), duration.
 */
export async function forwardEvent(
  event: StreamedEvent,
  target: string,
  secret: string,
  timeoutMs: number,
): Promise<string> {
  const body = JSON.stringify(event.payload);
  const started = performance.now();
  const headers = {
    ...signWebhook(body, [secret], event.id, Math.floor(Date.now() / 1000)),
    ...WEBHOOK_CONTENT_HEADERS,
  };
  let outcome: string;
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    outcome = `[${response.status}]`;
  } catch (error) {
    outcome = `[failed: ${whyNoAnswer(error)}]`;
  }
  const ms = Math.round(performance.now() - started);
  return `${new Date().toTimeString().slice(0, 8)}  --> ${event.type}  ${event.id}  ${outcome}  ${ms} ms`;
}

function whyNoAnswer(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
