import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import QRCode from 'qrcode';
import type { DB } from '../../db/schema.ts';
import type { App } from '../../http/app-type.ts';
import { findLink, listLinks, type PaymentLink } from '../../payment-links/payment-link-repository.ts';
import { paymentLinkDeps } from '../../payment-links/payment-link-routes.ts';
import { changeLink, createLink, linkPayments } from '../../payment-links/payment-link-service.ts';
import { linkUrls } from '../../payment-links/payment-link-views.ts';
import { ApiError, type FieldErrors } from '../../shared/errors.ts';
import { startOfNextDay } from '../../shared/zone-days.ts';
import { recordAudit, type AuditAction } from '../../users/audit.ts';
import { noticeNamed } from '../layout.ts';
import {
  FORM,
  PAGE,
  merchantModeOf,
  renderNotFoundPage,
  type DashboardDeps,
  type Form,
  type MerchantPage,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import { EMPTY_LINK_FORM, linkInputOf, readLinkForm } from './link-form.ts';
import { renderLinkForm, renderLinkList, renderLinkPage } from './link-views.ts';

/** The dashboard lists the newest links; the API pages through all of them. */
const LINKS_SHOWN = 100;

const NOTICES = {
  created: 'The payment link is ready: share it, or print its QR code.',
  saved: 'Saved: the page shows the new words.',
  off: 'The link is off: its page says so, and nobody can start paying it.',
  on: 'The link is on again.',
};

/**
 * Payment links: the list, a new link, and each link's page with its URL, QR code and share
 * buttons, its payments, and its few changes. Every change goes through the API's service, which
 * writes the audit entry in the transaction that makes the change.
 */
export function registerPaymentLinkPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const { config, database, clock } = deps;
  const db = database.db;
  const links = paymentLinkDeps({ config, database, clock });
  const audit = (page: MerchantPage, action: AuditAction) => (trx: Kysely<DB>, link: PaymentLink) =>
    recordAudit(
      trx,
      {
        merchantId: page.merchant.id,
        userId: page.user.id,
        action,
        subject: link.id,
        detail: { title: link.title, active: link.active === 1 },
      },
      clock.now(),
    );

  app.get('/dashboard/payment-links', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const { rows } = await listLinks(db, merchantModeOf(page), 1, LINKS_SHOWN);
    return guard.html(reply, 200, renderLinkList(page, rows, clock.now()));
  });

  app.get('/dashboard/payment-links/new', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'links');
    if (!page) return reply;
    return guard.html(reply, 200, renderLinkForm(page, EMPTY_LINK_FORM, {}));
  });

  app.post<{ Body: Form }>('/dashboard/payment-links', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'links');
    if (!page) return reply;
    const form = readLinkForm(request.body);
    const checked = linkInputOf(form, (date) => startOfNextDay(date, config.timeZone));
    if ('errors' in checked) return guard.html(reply, 422, renderLinkForm(page, form, checked.errors));
    try {
      const link = await createLink(links, merchantModeOf(page), checked.input, audit(page, 'payment_link.create'));
      return reply.redirect(`/dashboard/payment-links/${link.id}?done=created`, 303);
    } catch (error) {
      return guard.html(reply, 422, renderLinkForm(page, form, fieldErrorsOf(error)));
    }
  });

  async function showLinkPage(
    reply: FastifyReply,
    page: MerchantPage,
    id: string,
    status: number,
    notice: string | null,
    errors: FieldErrors = {},
  ) {
    const link = await findLink(db, merchantModeOf(page), id);
    if (!link) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment link'));
    const { url, qr_png_url: pngUrl } = linkUrls(config.publicBaseUrl, link.slug);
    const svg = await QRCode.toString(url, { type: 'svg', margin: 4, errorCorrectionLevel: 'M' });
    return guard.html(
      reply,
      status,
      renderLinkPage(page, link, {
        url,
        pngUrl,
        qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
        payments: await linkPayments(db, link),
        now: clock.now(),
        timeZone: config.timeZone,
        notice,
        errors,
      }),
    );
  }

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/dashboard/payment-links/:id',
    PAGE,
    async (request, reply) => {
      const page = await guard.merchantPage(request, reply, 'read');
      if (!page) return reply;
      return showLinkPage(reply, page, request.params.id, 200, noticeNamed(NOTICES, request.query.done));
    },
  );

  app.post<{ Params: { id: string }; Body: Form }>('/dashboard/payment-links/:id', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'links');
    if (!page) return reply;
    if (!(await findLink(db, merchantModeOf(page), request.params.id)))
      return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment link'));
    const update = { title: request.body.title ?? '', description: request.body.description ?? '' };
    if (update.title.length > 100)
      return showLinkPage(reply, page, request.params.id, 422, null, {
        title: ['The title may be 100 characters at most.'],
      });
    try {
      await changeLink(links, merchantModeOf(page), request.params.id, update, audit(page, 'payment_link.change'));
    } catch (error) {
      return showLinkPage(reply, page, request.params.id, 422, null, fieldErrorsOf(error));
    }
    return reply.redirect(`/dashboard/payment-links/${request.params.id}?done=saved`, 303);
  });

  app.post<{ Params: { id: string }; Body: Form }>(
    '/dashboard/payment-links/:id/active',
    FORM,
    async (request, reply) => {
      const page = await guard.merchantForm(request, reply, 'links');
      if (!page) return reply;
      if (!(await findLink(db, merchantModeOf(page), request.params.id)))
        return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment link'));
      const active = request.body.active === '1';
      await changeLink(links, merchantModeOf(page), request.params.id, { active }, audit(page, 'payment_link.change'));
      return reply.redirect(`/dashboard/payment-links/${request.params.id}?done=${active ? 'on' : 'off'}`, 303);
    },
  );
}

/** The API service's refusal, as the form shows it; anything else is not a refusal and goes on up. */
function fieldErrorsOf(error: unknown): FieldErrors {
  if (error instanceof ApiError && typeof error.body === 'object') return error.body;
  throw error;
}
