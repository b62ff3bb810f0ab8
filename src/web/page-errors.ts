import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendError, toApiError } from '../http/error-reply.ts';
import { sendHtml } from '../http/html.ts';
import type { ApiError } from '../shared/errors.ts';
import type { SafeHtml } from './html.ts';

/**
 * The error handler of our pages (checkout, 3-D Secure, dashboard, the HTML checkout form): a page
 * that fails is answered with a page, since a customer's browser reads HTML, never the API's JSON
 * envelope. A client error keeps the API's answer unless `refusalPage` says it in a page.
 */
export function pageErrorHandler(
  unavailablePage: () => SafeHtml,
  refusalPage?: (failure: ApiError) => SafeHtml,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, request, reply) => {
    const failure = toApiError(error, request.log);
    if (failure.status < 500) {
      // A refusal by the rate limits has set Retry-After already; the status and headers stay the API's.
      return refusalPage ? sendHtml(reply, failure.status, refusalPage(failure)) : sendError(reply, failure);
    }
    if (failure.code === 'unavailable') reply.header('retry-after', '1');
    return sendHtml(reply, failure.status, unavailablePage());
  };
}
