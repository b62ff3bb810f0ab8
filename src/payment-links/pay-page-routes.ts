import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { answerPageError, pageSchema } from '../checkout/checkout-page-routes.ts';
import { renderForbiddenPage, renderNotFoundPage } from '../checkout/page/views.ts';
import type { App } from '../http/app-type.ts';
import { sendHtml } from '../http/html.ts';
import type { Form } from '../http/json-body.ts';
import { isHttps } from '../shared/urls.ts';
import { readCookie } from '../web/cookies.ts';
import { csrfTokenMatches, fromOurOrigin, issueCsrfCookie } from '../web/csrf.ts';
import { readPayForm } from './pay-form.ts';
import { renderPayPage, renderUnavailableLinkPage } from './pay-page-views.ts';
import { findBrandedLinkBySlug, type BrandedLink } from './payment-link-repository.ts';
import { paymentLinkDeps, type PaymentLinkContext } from './payment-link-routes.ts';
import { openLinkSession, unavailability, type Unavailability } from './payment-link-service.ts';

type Params = { slug: string };

/** A slug as `ids.paymentLinkSlug` draws it: anything else is looked up nowhere. */
const SLUG = /^[0-9A-Za-z]{12}$/;

/** The visitor's pending session of this link (its checkout id), so a reload or a second try reopens it. */
const VISITOR_COOKIE = 'lipira_pay';

/** A QR code of the link, sized for a counter sign: 1024 px, a quiet zone of 4 modules, M error correction. */
const QR_OPTIONS = { margin: 4, errorCorrectionLevel: 'M' } as const;
const QR_PNG_WIDTH = 1024;

/**
 * The link's public page (docs/integrate/api-reference.md#payment-links): no key, limited per
 * client address like every keyless page; the checkout page's CSP, script and look.
 */
export function registerPayPageRoutes(app: App, ctx: PaymentLinkContext): void {
  const deps = paymentLinkDeps(ctx);
  const base = ctx.config.publicBaseUrl;
  const secureCookies = isHttps(base);
  const linkPath = (link: BrandedLink) => `/pay/${link.slug}`;

  async function findLink(slug: string): Promise<BrandedLink | undefined> {
    return SLUG.test(slug) ? findBrandedLinkBySlug(deps.db, slug) : undefined;
  }

  const showUnavailable = (reply: FastifyReply, link: BrandedLink, why: Unavailability) =>
    sendHtml(reply, why === 'held' ? 409 : 410, renderUnavailableLinkPage(link, why));

  app.get<{ Params: Params }>(
    '/pay/:slug',
    {
      errorHandler: answerPageError,
      schema: pageSchema(
        'showPaymentLinkPage',
        "A payment link's page: the amount (or a field for it) and the details it asks",
        {
          200: 'The page',
          404: 'Unknown link',
          410: 'The link is inactive, expired or used up: a page saying so',
        },
      ),
    },
    async (request, reply) => {
      const link = await findLink(request.params.slug);
      if (!link) return sendHtml(reply, 404, renderNotFoundPage());
      const why = unavailability(link, deps.clock.now());
      if (why) return showUnavailable(reply, link, why);
      const csrfToken = issueCsrfCookie(request, reply, linkPath(link), secureCookies);
      return sendHtml(reply, 200, renderPayPage(link, { csrfToken, values: {}, errors: {} }));
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/pay/:slug',
    {
      config: { startsNewWork: true, form: true },
      errorHandler: answerPageError,
      schema: pageSchema('payPaymentLink', "Continue to payment (the link page's form): opens the checkout session", {
        303: 'On to the hosted checkout page of the session opened (or the one this browser opened already)',
        403: "The form's anti-forgery token or origin did not match",
        404: 'Unknown link',
        409: 'Every use of a limited link is held by a customer paying it now: a page saying so',
        410: 'The link is inactive, expired or used up: a page saying so',
        422: 'The page again, saying which detail was refused',
      }),
    },
    async (request, reply) => {
      const link = await findLink(request.params.slug);
      if (!link) return sendHtml(reply, 404, renderNotFoundPage());
      if (!fromOurOrigin(request, base) || !csrfTokenMatches(request, request.body?.csrf))
        return sendHtml(reply, 403, renderForbiddenPage(`${base}${linkPath(link)}`));
      const read = readPayForm(link, request.body ?? {});
      if ('errors' in read) {
        const csrfToken = issueCsrfCookie(request, reply, linkPath(link), secureCookies);
        return sendHtml(reply, 422, renderPayPage(link, { csrfToken, ...read }));
      }
      const opening = await openLinkSession(
        deps,
        link.id,
        read.entry,
        `${base}${linkPath(link)}`,
        visitorSession(request),
      );
      if ('unavailable' in opening) return showUnavailable(reply, link, opening.unavailable);
      rememberVisitorSession(reply, link, opening.session.id, opening.session.expires_at - deps.clock.now());
      return reply.redirect(`/checkout/${opening.session.id}`, 303);
    },
  );

  app.get<{ Params: Params }>(
    '/pay/:slug/qr.svg',
    {
      errorHandler: answerPageError,
      schema: pageSchema('getPaymentLinkQrSvg', "The link's QR code, as SVG", {
        200: 'The image',
        404: 'Unknown link',
      }),
    },
    async (request, reply) => {
      const link = await findLink(request.params.slug);
      if (!link) return sendHtml(reply, 404, renderNotFoundPage());
      const svg = await QRCode.toString(`${base}${linkPath(link)}`, { ...QR_OPTIONS, type: 'svg' });
      return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg);
    },
  );

  app.get<{ Params: Params }>(
    '/pay/:slug/qr.png',
    {
      errorHandler: answerPageError,
      schema: pageSchema('getPaymentLinkQrPng', "The link's QR code, as a 1024 px PNG for printing", {
        200: 'The image',
        404: 'Unknown link',
      }),
    },
    async (request, reply) => {
      const link = await findLink(request.params.slug);
      if (!link) return sendHtml(reply, 404, renderNotFoundPage());
      const png = await QRCode.toBuffer(`${base}${linkPath(link)}`, {
        ...QR_OPTIONS,
        type: 'png',
        width: QR_PNG_WIDTH,
      });
      return reply
        .type('image/png')
        .header('cache-control', 'public, max-age=86400')
        .header('content-disposition', `attachment; filename="payment-link-${link.slug}.png"`)
        .send(png);
    },
  );

  function visitorSession(request: FastifyRequest): string | null {
    const value = readCookie(request, VISITOR_COOKIE);
    return value && /^[0-9A-Za-z]{1,64}$/.test(value) ? value : null;
  }

  /** Scoped to the link's path, and gone when the session can no longer be paid. */
  function rememberVisitorSession(reply: FastifyReply, link: BrandedLink, sessionId: string, lifeMs: number): void {
    const maxAge = Math.max(0, Math.floor(lifeMs / 1000));
    reply.header(
      'set-cookie',
      `${VISITOR_COOKIE}=${sessionId}; Path=${linkPath(link)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`,
    );
  }
}
