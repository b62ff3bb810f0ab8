import type { FastifyReply } from 'fastify';
import { isPlainOrigin } from '../shared/urls.ts';

/**
 * Sends one of our HTML pages with the headers a payment page needs: scripts and styles only
 * from us, no framing, the secret checkout link never leaked to other sites through Referer,
 * nothing cached.
 * `formTargets` are the merchant origins our forms may redirect to (Chrome checks redirects
 * after a form post against form-action). One that is not a plain `scheme://host[:port]` is left
 * out: a session stored before URL hosts were checked strictly may hold `https://a;frame-ancestors`,
 * whose `;` would start a directive of the merchant's choosing.
 */
export function sendHtml(reply: FastifyReply, status: number, html: string, formTargets: string[] = []): FastifyReply {
  let formAction = "'self'";
  for (const origin of formTargets) if (isPlainOrigin(origin)) formAction += ` ${origin}`;
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' http: https: data:; connect-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    // same-origin, not no-referrer: the link never leaks to other sites, yet browsers still send a
    // real Origin (not "null") on our own form posts, which the forms' origin check relies on.
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(html);
}
