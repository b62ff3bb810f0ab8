import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-type.ts';
import {
  listKeys,
  rollSecretKey,
  rollWebhookSecret,
  updateMerchantSettings,
  webhookSecretOverlapEnd,
} from '../../merchants/merchant-service.ts';
import { formatHumanDate, parseDuration } from '../../shared/time.ts';
import { recordAudit } from '../../users/audit.ts';
import { DEFAULT_PER_PAGE, listDeliveries, showDelivery } from '../../webhooks/webhook-service.ts';
import { liveNoticeBox } from '../live-notice.ts';
import { noticeNamed, NOTHING_CHANGED } from '../layout.ts';
import {
  FORM,
  PAGE,
  merchantModeOf,
  type DashboardDeps,
  type Form,
  type MerchantPage,
  type PageGuard,
  type Query,
} from '../page-context.ts';
import {
  deliveryFilter,
  renderDevelopersPage,
  renderNewSecretPage,
  renderRollWebhookSecretPage,
  webhookSecretOverlapOf,
  type DevelopersState,
} from './developer-views.ts';
import { sendTestEvent, webhookUrlProblem } from './webhook-target.ts';

const NOTICES: Record<string, string> = {
  url: 'The webhook URL is saved.',
  test: 'A test event is on its way: it shows in the delivery log below.',
  unchanged: NOTHING_CHANGED,
};

/**
 * Keys, webhook settings and the delivery log of the page's mode. Rolling a key needs `keys`;
 * everything about webhooks needs `webhooks`; each change is audited in its own transaction.
 * The mode's webhook secret is rolled after a confirmation page of its own, with an overlap
 * during which the secret it replaces signs beside it.
 */
export function registerDeveloperPages(app: App, { config, database, clock }: DashboardDeps, guard: PageGuard): void {
  const db = database.db;

  async function show(
    reply: FastifyReply,
    page: MerchantPage,
    query: Query,
    status: number,
    extra: Partial<DevelopersState> = {},
  ) {
    const now = clock.now();
    const filter = deliveryFilter(query);
    const wanted = Math.max(1, Math.min(10_000, Number.parseInt(query.page ?? '1', 10) || 1));
    const owner = merchantModeOf(page);
    const found = await listDeliveries(
      db,
      owner,
      {
        status: filter.status || undefined,
        txRef: filter.tx_ref || undefined,
        chargeId: filter.charge_id || undefined,
      },
      wanted,
      DEFAULT_PER_PAGE,
    );
    const deliveries = await Promise.all(
      found.rows.map(async (row) => {
        const { delivery, attempts } = await showDelivery(db, owner, row.id);
        return { delivery, last: attempts.at(-1) ?? null };
      }),
    );
    const keys = (await listKeys(db, page.merchant.id))
      .filter((key) => key.mode === page.mode && (key.expires_at === null || key.expires_at > now))
      .reverse();
    const retried = query.retried ? `Delivery ${query.retried} is queued to be sent again.` : null;
    const state: DevelopersState = {
      keys,
      webhookUrl: page.merchant.webhook_url,
      overlapEnd: await webhookSecretOverlapEnd(db, owner, now),
      notice: noticeNamed(NOTICES, query.done) ?? retried,
      filter,
      deliveries,
      page: wanted,
      pages: Math.max(1, Math.ceil(found.total / DEFAULT_PER_PAGE)),
      timeZone: config.timeZone,
      liveNotice: liveNoticeBox(page.mode, config.liveRoutes),
      ...extra,
    };
    return guard.html(reply, status, renderDevelopersPage(page, state));
  }

  app.get<{ Querystring: Query }>('/dashboard/developers', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    return show(reply, page, request.query, 200);
  });

  app.post<{ Body: Form }>('/dashboard/developers/keys/roll', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'keys');
    if (!page) return reply;
    const overlapText = (request.body.overlap ?? '').trim();
    const overlapMs = parseDuration(overlapText);
    if (overlapMs === null)
      return show(reply, page, {}, 422, {
        error: `"${overlapText}" is not a duration: write 0, or a number with s, m, h or d, such as 10m or 24h.`,
      });
    const rolled = await rollSecretKey(
      db,
      { merchantId: page.merchant.id, mode: page.mode },
      { expireOldInMs: overlapMs, now: clock.now(), actorId: page.user.id },
    );
    if (!rolled) return show(reply, page, {}, 404, { error: 'This account no longer exists.' });
    const stops =
      overlapMs === 0
        ? 'The older secret keys have stopped working.'
        : `The older ${page.mode} secret keys keep working until ${formatHumanDate(rolled.old_keys_expire_at, config.timeZone)}.`;
    return guard.html(
      reply,
      200,
      renderNewSecretPage(page, {
        title: `New ${page.mode} secret key`,
        secret: rolled.secret_key,
        lines: [stops, 'Only its hash is kept: if it is lost, roll again.'],
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/developers/webhook', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'webhooks');
    if (!page) return reply;
    const typed = (request.body.url ?? '').trim();
    const problem = typed === '' ? null : webhookUrlProblem(typed, config);
    if (problem) return show(reply, page, {}, 422, { error: problem, typedUrl: typed });
    const url = typed === '' ? null : typed;
    if (url === page.merchant.webhook_url) return reply.redirect('/dashboard/developers?done=unchanged', 303);
    const now = clock.now();
    await database.transact(async (trx) => {
      await updateMerchantSettings(trx, page.merchant.id, { webhookUrl: url }, now);
      await recordAudit(
        trx,
        {
          merchantId: page.merchant.id,
          userId: page.user.id,
          action: 'webhook.url_change',
          subject: page.merchant.id,
          detail: { from: page.merchant.webhook_url, to: url },
        },
        now,
      );
    });
    return reply.redirect('/dashboard/developers?done=url', 303);
  });

  async function rollPage(reply: FastifyReply, page: MerchantPage, status: number, error: string | null) {
    const overlapEnd = await webhookSecretOverlapEnd(db, merchantModeOf(page), clock.now());
    return guard.html(
      reply,
      status,
      renderRollWebhookSecretPage(page, {
        webhookUrl: page.merchant.webhook_url,
        overlapEnd,
        timeZone: config.timeZone,
        error,
      }),
    );
  }

  // A roll is asked for on a page of its own, where the overlap is chosen; only that page's post rolls.
  app.get('/dashboard/developers/webhook/secret', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'webhooks');
    if (!page) return reply;
    return rollPage(reply, page, 200, null);
  });

  app.post<{ Body: Form }>('/dashboard/developers/webhook/secret', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'webhooks');
    if (!page) return reply;
    const overlapMs = webhookSecretOverlapOf(request.body.overlap);
    if (overlapMs === null)
      return rollPage(reply, page, 422, 'Choose how long the current secret keeps signing beside the new one.');
    const now = clock.now();
    const rolled = await database.transact(async (trx) => {
      const made = await rollWebhookSecret(trx, merchantModeOf(page), { overlapMs, now });
      if (made)
        await recordAudit(
          trx,
          {
            merchantId: page.merchant.id,
            userId: page.user.id,
            action: 'webhook.secret_roll',
            subject: page.merchant.id,
            detail: {
              mode: page.mode,
              previous_signs_until: made.previous_until === null ? null : new Date(made.previous_until).toISOString(),
            },
          },
          now,
        );
      return made;
    });
    if (!rolled) return show(reply, page, {}, 404, { error: 'This account no longer exists.' });
    const signedFromNow = `Every ${page.mode}-mode webhook from now on (retries too) is signed with it; live and test keep separate secrets.`;
    const previous =
      rolled.previous_until === null
        ? 'The previous secret stopped signing now: verify with the new one from now on.'
        : `Until ${formatHumanDate(rolled.previous_until, config.timeZone)}, each webhook also carries a signature made with the previous secret (in webhook-signature), so your server can switch to the new secret at any time before then.`;
    return guard.html(
      reply,
      200,
      renderNewSecretPage(page, {
        title: `New ${page.mode} webhook secret`,
        secret: rolled.secret,
        lines: [signedFromNow, previous],
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/developers/webhook/test', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'webhooks');
    if (!page) return reply;
    if (!page.merchant.webhook_url)
      return show(reply, page, {}, 422, { error: 'There is no webhook URL to send a test event to: save one first.' });
    if (page.merchant.webhooks_enabled !== 1)
      return show(reply, page, {}, 422, {
        error: 'Webhooks are turned off for this account by the gateway operator: no event is sent.',
      });
    const now = clock.now();
    await database.transact(async (trx) => {
      const testId = await sendTestEvent(trx, merchantModeOf(page), now, config.timeZone);
      await recordAudit(
        trx,
        {
          merchantId: page.merchant.id,
          userId: page.user.id,
          action: 'webhook.test_event',
          subject: testId,
          detail: { mode: page.mode, url: page.merchant.webhook_url },
        },
        now,
      );
    });
    return reply.redirect('/dashboard/developers?done=test', 303);
  });
}
