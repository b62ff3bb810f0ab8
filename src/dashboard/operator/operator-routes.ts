import type { FastifyReply } from 'fastify';
import { parseFeePercent } from '../../config.ts';
import type { App } from '../../http/app-type.ts';
import {
  createMerchant,
  findMerchant,
  listMerchants,
  updateMerchantSettings,
} from '../../merchants/merchant-service.ts';
import { listInReview } from '../../payments/review-repository.ts';
import { isHttpUrl } from '../../shared/urls.ts';
import { recordAudit } from '../../users/audit.ts';
import { createUser, isEmailAddress, normaliseEmail, UserError } from '../../users/user-service.ts';
import { noticeNamed, NOTHING_CHANGED } from '../layout.ts';
import { registerMemberResets } from '../settings/member-resets.ts';
import {
  ACTING_COOKIE,
  dashboardCookie,
  FORM,
  PAGE,
  renderNotFoundPage,
  type DashboardDeps,
  type DashboardPage,
  type Form,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import { OVERVIEW_DAYS } from '../overview/overview-routes.ts';
import { lastDays } from '../../shared/zone-days.ts';
import { gatewayHealth, merchantUsers, userCounts, volumesSince } from './operator-repository.ts';
import * as views from './operator-views.ts';

const SAVED_NOTICES: Record<string, string> = {
  fee: 'The fee is saved.',
  user: 'The user is added: a link to set a password was emailed to them.',
  two_factor_reset:
    'Two-factor sign-in is reset: the user is signed out, emailed, and sets it up again at their next sign-in.',
  password_reset: 'The password is reset: the user is signed out and emailed a link to choose a new one.',
  unchanged: NOTHING_CHANGED,
};

/**
 * The gateway operator's pages: every merchant with its recent volume, creating one (its keys
 * shown once), its fee and users (adding one, resetting one's two-factor sign-in or password),
 * acting for one (the merchant pages then show it; logged), and
 * the gateway's health as the database tells it. Every page and form needs `operate`.
 */
export function registerOperatorPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const { config, database, lifecycle, clock } = deps;
  const db = database.db;

  app.get<{ Querystring: Query }>('/dashboard/operator', PAGE, async (request, reply) => {
    const page = await guard.page(request, reply, 'operate');
    if (!page) return reply;
    const now = clock.now();
    const since = lastDays(now, OVERVIEW_DAYS, config.timeZone)[0]!.start;
    const [merchants, users, health, inReview] = await Promise.all([
      listMerchants(db),
      userCounts(db),
      gatewayHealth(db, now),
      listInReview(db),
    ]);
    const summaries = await Promise.all(
      merchants.map(async (merchant) => ({
        merchant,
        users: users.get(merchant.id) ?? 0,
        volumes: await volumesSince(db, merchant.id, since),
      })),
    );
    const notice = request.query.stopped !== undefined ? 'You no longer act for any merchant.' : null;
    const workers = {
      running: lifecycle.workers.filter((worker) => worker.running()).length,
      total: lifecycle.workers.length,
      draining: lifecycle.draining,
    };
    return guard.html(
      reply,
      200,
      views.renderOperatorPage({
        viewer: page.viewer,
        actingFor: page.merchant,
        merchants: summaries,
        health,
        workers,
        inReview,
        days: OVERVIEW_DAYS,
        now,
        timeZone: config.timeZone,
        notice,
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/operator/act', FORM, async (request, reply) => {
    const page = await guard.form(request, reply, 'operate');
    if (!page) return reply;
    const merchantId = request.body.merchant_id?.trim() ?? '';
    if (merchantId === '') {
      reply.header('set-cookie', `${dashboardCookie(ACTING_COOKIE, '', guard.secure)}; Max-Age=0`);
      return reply.redirect('/dashboard/operator?stopped=1', 303);
    }
    const merchant = await findMerchant(db, merchantId);
    if (!merchant) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'merchant'));
    await database.transact((trx) =>
      recordAudit(
        trx,
        {
          merchantId: merchant.id,
          userId: page.user.id,
          action: 'operator.act_for',
          subject: merchant.id,
          detail: { operator: page.user.email },
        },
        clock.now(),
      ),
    );
    reply.header('set-cookie', dashboardCookie(ACTING_COOKIE, merchant.id, guard.secure));
    return reply.redirect('/dashboard', 303);
  });

  const defaultFee = () => String(config.defaultFeeBasisPoints / 100);

  app.get('/dashboard/operator/merchants/new', PAGE, async (request, reply) => {
    const page = await guard.page(request, reply, 'operate');
    if (!page) return reply;
    return guard.html(
      reply,
      200,
      views.renderNewMerchantPage(page.viewer, { name: '', email: '', webhookUrl: '', feePercent: defaultFee() }, null),
    );
  });

  app.post<{ Body: Form }>('/dashboard/operator/merchants/new', FORM, async (request, reply) => {
    const page = await guard.form(request, reply, 'operate');
    if (!page) return reply;
    const form: views.NewMerchantForm = {
      name: (request.body.name ?? '').trim(),
      email: (request.body.email ?? '').trim(),
      webhookUrl: (request.body.webhook_url ?? '').trim(),
      feePercent: (request.body.fee_percent ?? '').trim(),
    };
    const again = (error: string) => guard.html(reply, 422, views.renderNewMerchantPage(page.viewer, form, error));
    if (form.name === '' || form.name.length > views.MAX_NAME)
      return again(`Give the business a name of 1 to ${views.MAX_NAME} characters.`);
    if (!isEmailAddress(normaliseEmail(form.email))) return again(`"${form.email}" is not an email address.`);
    if (form.webhookUrl !== '' && !isHttpUrl(form.webhookUrl))
      return again('The webhook URL must be an absolute http(s) URL, or left empty.');
    const feeBasisPoints = parseFeePercent(form.feePercent);
    if (feeBasisPoints === null) return again('The fee must be a percentage from 0 to 100 with at most two decimals.');
    const created = await createMerchant(
      db,
      {
        name: form.name,
        email: form.email,
        webhookUrl: form.webhookUrl === '' ? null : form.webhookUrl,
        feeBasisPoints,
        createdBy: page.user.id,
      },
      clock.now(),
    );
    return guard.html(reply, 201, views.renderMerchantCreatedPage(page.viewer, created));
  });

  /** The merchant the URL names, or null once a 404 was answered. */
  async function foundMerchant(request: { params: { id: string } }, reply: FastifyReply, page: DashboardPage) {
    const merchant = await findMerchant(db, request.params.id);
    if (!merchant) guard.html(reply, 404, renderNotFoundPage(page.viewer, 'merchant'));
    return merchant ?? null;
  }

  async function renderMerchant(
    page: DashboardPage,
    merchantId: string,
    parts: Partial<Pick<views.OperatorMerchantView, 'notice' | 'error' | 'fee' | 'user'>>,
  ) {
    const merchant = (await findMerchant(db, merchantId))!;
    return views.renderOperatorMerchantPage({
      viewer: page.viewer,
      merchant,
      users: await merchantUsers(db, merchant.id),
      timeZone: config.timeZone,
      notice: parts.notice ?? null,
      error: parts.error ?? null,
      fee: parts.fee ?? { value: String(merchant.fee_bps / 100), error: null },
      user: parts.user ?? { email: '', role: 'viewer', error: null },
    });
  }

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/dashboard/operator/merchants/:id',
    PAGE,
    async (request, reply) => {
      const page = await guard.page(request, reply, 'operate');
      if (!page) return reply;
      const merchant = await foundMerchant(request, reply, page);
      if (!merchant) return reply;
      const { saved } = request.query;
      const notice = noticeNamed(SAVED_NOTICES, saved);
      return guard.html(reply, 200, await renderMerchant(page, merchant.id, { notice }));
    },
  );

  app.post<{ Params: { id: string }; Body: Form }>(
    '/dashboard/operator/merchants/:id/fees',
    FORM,
    async (request, reply) => {
      const page = await guard.form(request, reply, 'operate');
      if (!page) return reply;
      const merchant = await foundMerchant(request, reply, page);
      if (!merchant) return reply;
      const value = (request.body.fee_percent ?? '').trim();
      const feeBasisPoints = parseFeePercent(value);
      if (feeBasisPoints === null) {
        return guard.html(
          reply,
          422,
          await renderMerchant(page, merchant.id, {
            fee: { value, error: 'The fee must be a percentage from 0 to 100 with at most two decimals.' },
          }),
        );
      }
      if (feeBasisPoints === merchant.fee_bps)
        return reply.redirect(`/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}?saved=unchanged`, 303);
      const now = clock.now();
      await database.transact(async (trx) => {
        await updateMerchantSettings(trx, merchant.id, { feeBasisPoints }, now);
        await recordAudit(
          trx,
          {
            merchantId: merchant.id,
            userId: page.user.id,
            action: 'merchant.fees',
            subject: merchant.id,
            detail: { from_percent: merchant.fee_bps / 100, to_percent: feeBasisPoints / 100 },
          },
          now,
        );
      });
      return reply.redirect(`/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}?saved=fee`, 303);
    },
  );

  registerMemberResets(app, deps, guard, {
    path: '/dashboard/operator/merchants/:id/users/:user',
    async open(request, reply, form) {
      const page = form ? await guard.form(request, reply, 'operate') : await guard.page(request, reply, 'operate');
      if (!page) return null;
      const merchant = await foundMerchant({ params: { id: request.params.id! } }, reply, page);
      if (!merchant) return null;
      return {
        page,
        merchantId: merchant.id,
        viewer: page.viewer,
        by: { actor: page.user, merchantId: merchant.id },
        memberId: request.params.user!,
        back: `/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}`,
      };
    },
    refuse: async (reply, target, message) =>
      guard.html(reply, 422, await renderMerchant(target.page, target.merchantId, { error: message })),
    done: (target, kind) => `${target.back}?saved=${kind === 'two-factor' ? 'two_factor_reset' : 'password_reset'}`,
  });

  app.post<{ Params: { id: string }; Body: Form }>(
    '/dashboard/operator/merchants/:id/users',
    FORM,
    async (request, reply) => {
      const page = await guard.form(request, reply, 'operate');
      if (!page) return reply;
      const merchant = await foundMerchant(request, reply, page);
      if (!merchant) return reply;
      const email = (request.body.email ?? '').trim();
      const role = views.MERCHANT_ROLES.find((known) => known === request.body.role);
      const again = (error: string) =>
        renderMerchant(page, merchant.id, { user: { email, role: request.body.role ?? 'viewer', error } }).then(
          (html) => guard.html(reply, 422, html),
        );
      if (!role) return again('Choose a role: owner, developer or viewer.');
      try {
        await createUser(db, config, { merchantId: merchant.id, email, role, actorId: page.user.id }, clock.now());
        return reply.redirect(`/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}?saved=user`, 303);
      } catch (error) {
        if (error instanceof UserError) return again(error.message);
        throw error;
      }
    },
  );
}
