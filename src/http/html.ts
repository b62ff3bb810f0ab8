import type { FastifyReply } from 'fastify';
import { isPlainOrigin } from '../shared/urls.ts';
import type { SafeHtml } from '../web/html.ts';

/**
 * Sends one of our HTML pages with the headers a payment page needs: scripts and styles only
 * from us, no framing, the secret checkout link never leaked to other sites through Referer,
 * nothing cached.
 * `formTargets` are the merchant origins our forms may redirect to (Chrome checks redirects
 * after a form post against form-action). One that is not a plain `scheme://host[:port]` is left
 * out: a session stored before URL hosts were checked strictly may hold `https://a;frame-ancestors`,
 * whose `;` would start a directive of the merchant's choosing.
 * `frameAncestor` is the one origin that may show the page in a frame (a session's pages in the
 * inline popup, on the merchant page that created it); without one, or with one that is not a
 * plain origin, no page may frame ours.
 */
export function sendHtml(
  reply: FastifyReply,
  status: number,
  page: SafeHtml,
  formTargets: string[] = [],
  frameAncestor: string | null = null,
): FastifyReply {
  let formAction = "'self'";
  for (const origin of formTargets) if (isPlainOrigin(origin)) formAction += ` ${origin}`;
  const framer = frameAncestor !== null && isPlainOrigin(frameAncestor) ? frameAncestor : null;
  // X-Frame-Options knows no single allowed origin: it is left out when one origin may frame the page.
  if (framer === null) reply.header('x-frame-options', 'DENY');
  return (
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' http: https: data:; connect-src 'self'; form-action ${formAction}; frame-ancestors ${framer ?? "'none'"}; base-uri 'none'`,
      )
      .header('x-content-type-options', 'nosniff')
      // same-origin, not no-referrer: the link never leaks to other sites, yet browsers still send a
      // real Origin (not "null") on our own form posts, which the forms' origin check relies on.
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .send(page.toString())
  );
}
