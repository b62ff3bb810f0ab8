import type { FuzzRequest, FuzzResponse } from './fuzz-http.ts';
import { XSS_MARKER } from './fuzz-json.ts';
import type { RoutePlan } from './fuzz-routes.ts';

/**
 * What every answer to a fuzz request must be, whatever was sent: an answer (no hang, no reset),
 * below 500, without a stack trace, internal detail or secret, with a request id, in the
 * envelope (docs/integrate/api-reference.md#envelope) when it is JSON, with any markup the request carried escaped when it is
 * HTML; and, where the request alone decides the answer, that answer.
 */

/** Traces and internals: V8 stack frames, source paths, database errors, JS error names (one pattern: one pass over each answer). */
const INTERNALS = new RegExp(
  [
    /\n {2,}at \S/,
    /\bat (?:async )?[\w.<>]+ \((?:file|node):/,
    /\/src\/\w/,
    /node_modules/,
    /\.ts:\d+/,
    /file:\/\//,
    /Sqlite\w*Error|SQLITE_[A-Z]+/,
    /(?:ERROR|error): (?:relation|column|syntax|invalid|duplicate|null value|value too long|out of range)/,
    /violates \w+ constraint/,
    /(?:Type|Range|Reference|Syntax)Error\b/,
    /Maximum call stack/,
    /FST_ERR_\w+/,
    /Kysely|better-sqlite3/,
  ]
    .map((pattern) => `(?:${pattern.source})`)
    .join('|'),
  'g',
);

const HTML_INJECTIONS = [`<script>${XSS_MARKER}`, `<img src=x onerror=${XSS_MARKER}`, `<svg onload=${XSS_MARKER}`];

export interface Verdict {
  /** What is wrong with the answer, in words; empty when nothing is. */
  problems: string[];
  /** A trace or internal detail was found (counted separately in the report). */
  leakedInternals: boolean;
}

export function judge(plan: RoutePlan, request: FuzzRequest, answer: FuzzResponse | Error, secrets: string[]): Verdict {
  if (answer instanceof Error) return { problems: [`no answer: ${answer.message}`], leakedInternals: false };
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  const sent = `${request.path}\n${JSON.stringify(request.headers)}\n${request.body ?? ''}`;
  const leaks = [...answer.text.matchAll(INTERNALS)].map((match) => match[0]).filter((found) => !sent.includes(found));
  for (const found of leaks) problems.push(`shows internal detail ${JSON.stringify(found)}`);
  for (const secret of secrets) if (answer.text.includes(secret)) problems.push('shows a secret');
  if (!answer.headers['x-request-id']) problems.push('has no X-Request-Id');
  const type = String(answer.headers['content-type'] ?? '');
  if (type.startsWith('application/json') && request.method !== 'HEAD') problems.push(...jsonProblems(plan, answer));
  if (type.startsWith('text/html'))
    for (const injection of HTML_INJECTIONS)
      if (answer.text.includes(injection)) problems.push(`echoes markup unescaped: ${injection}`);
  problems.push(...decidedByRequest(plan, request, answer));
  return { problems, leakedInternals: leaks.length > 0 };
}

function jsonProblems(plan: RoutePlan, answer: FuzzResponse): string[] {
  // The API reference's documents are the same text every time: what matters is scanned above.
  if (plan.answers === 'document' && answer.status < 400) return [];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return ['says JSON but is not'];
  }
  if (
    plan.answers === 'attempt-status' &&
    (answer.status === 200 || (answer.status === 404 && !routeNotFound(answer)))
  ) {
    return isRecord(body) && typeof body.status === 'string' && 'next_url' in body
      ? []
      : ['is not the attempt status shape'];
  }
  if (plan.answers === 'card-start' && answer.status < 400) {
    return isRecord(body) &&
      Object.keys(body).sort().join() === '3ds_auth_link,orderReference,requires_3ds_auth,success' &&
      body.success === true
      ? []
      : ['is not the card charge shape'];
  }
  if (!isRecord(body) || Object.keys(body).sort().join() !== 'data,message,status')
    return ['is not the {status, message, data} envelope'];
  if (answer.status >= 400) {
    const fieldsOk =
      isRecord(body.message) &&
      Object.values(body.message).every(
        (list) => Array.isArray(list) && list.length > 0 && list.every((text) => typeof text === 'string'),
      );
    if (body.status !== 'failed' || body.data !== null || !(typeof body.message === 'string' || fieldsOk))
      return ['is not the error envelope'];
    return [];
  }
  return (body.status === 'success' || body.status === 'successful') &&
    typeof body.message === 'string' &&
    typeof body.data === 'object'
    ? []
    : ['is not the success envelope'];
}

/** A path the router could not take (too long a parameter, bad encoding) is the 404 of docs/integrate/api-reference.md#errors for any request. */
const routeNotFound = (answer: FuzzResponse) => answer.status === 404 && answer.text.includes('"Route not found."');

/** Node's limit on a request's line and headers (16 KiB), with room for the bytes our count leaves out. */
const HEAD_LIMIT = { surely: 16_384 + 512, never: 16_384 - 512 };

/** Answers the request alone decides: headers too large, 431; no key, no entry; too big, 413; not a JSON object, 400. */
function decidedByRequest(plan: RoutePlan, request: FuzzRequest, answer: FuzzResponse): string[] {
  const { intent } = request;
  const unreadable =
    answer.status === 400 && (request.method === 'HEAD' || answer.text.includes('The request could not be read.'));
  if (!intent.readable)
    return unreadable || (answer.status === 431 && intent.headBytes > HEAD_LIMIT.never)
      ? []
      : [
          `answered ${answer.status} to a path that is not ASCII (expected the 400 saying the request could not be read)`,
        ];
  if (intent.headBytes > HEAD_LIMIT.surely)
    return answer.status === 431 ? [] : [`answered ${answer.status} to headers over 16 KiB (expected 431)`];
  if (answer.status === 431 && intent.headBytes < HEAD_LIMIT.never)
    return [`answered 431 to ${intent.headBytes} bytes of headers`];
  if (!intent.routed || routeNotFound(answer) || answer.status === 431) return [];
  if (plan.auth !== 'none' && intent.key === 'invalid' && answer.status !== 401)
    return [`answered ${answer.status} to a request without a valid key (expected 401)`];
  if (intent.key !== 'valid') return [];
  const notJson = answer.status === 400 && answer.text.includes('The request body must be a JSON object.');
  const readsJson = plan.body === 'json' || plan.body === 'none';
  if (intent.contentType === 'unreadable' && readsJson && (intent.oversized || intent.notJsonObject))
    return notJson
      ? []
      : [`answered ${answer.status} to a body under no media type (expected the 400 saying it is not a JSON object)`];
  if (intent.contentType !== 'readable') return [];
  if (intent.oversized && answer.status !== 413)
    return [`answered ${answer.status} to a body over the limit (expected 413)`];
  if (intent.notJsonObject && !notJson)
    return [`answered ${answer.status} to a body that is not a JSON object (expected the 400 saying so)`];
  return [];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
