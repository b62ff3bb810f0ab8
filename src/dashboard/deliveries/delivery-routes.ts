import type { App } from '../../http/app-type.ts';
import { ApiError } from '../../shared/errors.ts';
import { recordAudit } from '../../users/audit.ts';
import { redeliver } from '../../webhooks/webhook-service.ts';
import {
  dashboardPath,
  FORM,
  merchantModeOf,
  renderNotFoundPage,
  type DashboardDeps,
  type Form,
  type PageGuard,
} from '../page-context.ts';

/**
 * Retry, from wherever a delivery is shown (a payment's timeline, the developers' delivery log):
 * the delivery goes back on the queue at once, the retry is written to the audit log in the same
 * transaction, and the browser goes back to the page it came from.
 */
export function registerDeliveryPages(app: App, { database, clock }: DashboardDeps, guard: PageGuard): void {
  app.post<{ Params: { id: string }; Body: Form }>('/dashboard/deliveries/:id/retry', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'webhooks');
    if (!page) return reply;
    const now = clock.now();
    try {
      await database.transact(async (trx) => {
        const delivery = await redeliver(trx, merchantModeOf(page), request.params.id, now);
        await recordAudit(
          trx,
          {
            merchantId: page.merchant.id,
            userId: page.user.id,
            action: 'webhook.retry',
            subject: delivery.id,
            detail: { event_id: delivery.event_id },
          },
          now,
        );
      });
    } catch (error) {
      if (error instanceof ApiError) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'webhook delivery'));
      throw error;
    }
    return reply.redirect(
      `${dashboardPath(request.body.back, '/dashboard/developers')}?retried=${encodeURIComponent(request.params.id)}`,
      303,
    );
  });
}
