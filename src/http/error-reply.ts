import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyError, FastifyReply } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { ApiError, type ErrorCode } from '../shared/errors.ts';
import { laravelFieldErrors } from './validation.ts';

/** What a failure means for the client: one of the error table's entries (details stay in the log). */
export function toApiError(error: FastifyError | ApiError, log: FastifyBaseLogger): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return new ApiError('validation', laravelFieldErrors(error.validation));
  const known = FASTIFY_ERRORS[error.code];
  if (known) return new ApiError(known);
  if (isDatabaseUnavailable(error)) {
    log.warn({ err: error }, 'database unavailable');
    return new ApiError('unavailable');
  }
  log.error({ err: error }, 'unexpected error');
  return new ApiError('internal');
}

const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'bodyTooLarge',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'notJsonObject',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'notJsonObject',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'notJsonObject',
  FST_ERR_BAD_URL: 'routeNotFound',
  FST_ERR_MAX_PARAM_LENGTH: 'routeNotFound',
  FST_ERR_ASYNC_CONSTRAINT: 'routeNotFound',
};

/** Seconds a client refused for overload (src/http/overload.ts) is asked to wait: long enough for a burst to pass, short for a shopper. */
const OVERLOAD_RETRY_AFTER_SECONDS = 2;

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  // Unavailability is passing (a database outage, a restart): a second is a fair first wait.
  if (error.code === 'unavailable') reply.header('retry-after', '1');
  if (error.code === 'overloaded') reply.header('retry-after', String(OVERLOAD_RETRY_AFTER_SECONDS));
  // Refused before its body arrived (a 401 or 429 from the hooks): the connection closes after
  // the answer. Keeping it would mean reading the rest first, and a client announcing a large
  // body could then hold the socket until REQUEST_TIMEOUT. A request refused as overload keeps
  // it when its body is one the route would have read (Node reads and drops it after the answer):
  // closing made every refused create open a new connection, and under twice the load a process
  // can do that churn, not the process, put the refusals' p99 at 0.4–0.6 s (docs/performance.md, Overload).
  const raw = reply.request.raw;
  const readable = error.code === 'overloaded' && announcedLength(raw) <= reply.request.routeOptions.bodyLimit;
  if (bodyStillComing(raw) && !readable) reply.header('connection', 'close');
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ status: 'failed', message: error.body, data: null }));
}

/** The body's length as its headers announce it; a body sent in chunks announces none (Infinity). */
function announcedLength(request: IncomingMessage): number {
  if (request.headers['transfer-encoding'] !== undefined) return Infinity;
  const length = Number(request.headers['content-length'] ?? 0);
  return Number.isFinite(length) ? length : Infinity;
}

function bodyStillComing(request: IncomingMessage): boolean {
  return !request.complete && announcedLength(request) > 0;
}
