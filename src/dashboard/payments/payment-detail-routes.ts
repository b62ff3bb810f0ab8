import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import type { RefundWithCharge } from '../../refunds/refund-repository.ts';
import { previewRefund, refundPayment, refundsOf } from '../../refunds/refund-service.ts';
import { ApiError } from '../../shared/errors.ts';
import { moneyText, toMajor } from '../../shared/money.ts';
import { recordAudit } from '../../users/audit.ts';
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
import { findPaymentRecord, paymentHistory, type PaymentHistory } from './payment-detail-repository.ts';
import { renderPaymentPage } from './payment-detail-views.ts';
import { summarize } from './payment-summary.ts';
import { readRefundForm, refundRequestOf } from './refund-form.ts';
import { renderRefundConfirmation, type RefundFormState } from './refund-views.ts';

/**
 * One payment's page: what was paid, by whom and how (a card by its last four digits only), and
 * everything that happened to it in one timeline; and its refund, in two steps. The form's post
 * writes nothing: it checks the refund as the refund service will and shows a page saying what
 * will happen. Only that page's Confirm refunds, through the same service as `POST /refunds`,
 * with the audit entry in the refund's own transaction, and only while the payment's refunded
 * total is the one the page showed. A payment of another merchant, or of the other mode, is not
 * found, the same as one that does not exist.
 */
export function registerPaymentDetailPages(
  app: App,
  { config, database, payments }: DashboardDeps,
  guard: PageGuard,
): void {
  const { db } = database;

  async function show(
    reply: FastifyReply,
    page: MerchantPage,
    id: string,
    status: number,
    extra: { query?: Query; form?: RefundFormState | null },
  ): Promise<FastifyReply> {
    const owner = merchantModeOf(page);
    const record = await findPaymentRecord(db, owner, id);
    if (!record) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment'));
    const payment = summarize(record, config.checkoutMaxFailedAttempts);
    const refunds = await refundsOf(db, owner, payment.refundTarget);
    const subjects = [...payment.logOwners, ...refunds.map((refund) => refund.id)];
    const [history, balances] = await Promise.all([
      paymentHistory(db, owner, payment.logOwners, subjects),
      merchantBalances(db, owner.merchantId, owner.mode, payment.currency),
    ]);
    const notice = extra.query ? noticeOf(extra.query, refunds, history) : null;
    const view = {
      page,
      timeZone: config.timeZone,
      payment,
      history,
      refunds,
      balances,
      notice,
      form: extra.form ?? null,
    };
    return guard.html(reply, status, renderPaymentPage(view));
  }

  app.get<{ Params: { id: string }; Querystring: Query }>('/dashboard/payments/:id', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    return show(reply, page, request.params.id, 200, { query: request.query });
  });

  /**
   * The payment a refund form names and what the form asks: the answer already sent when there
   * is no such payment, or `refused` to show the page again with why.
   */
  async function refundAsked(request: FastifyRequest<{ Params: { id: string }; Body: Form }>, reply: FastifyReply) {
    const page = await guard.merchantForm(request, reply, 'refund');
    if (!page) return null;
    const record = await findPaymentRecord(db, merchantModeOf(page), request.params.id);
    if (!record) {
      await guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment'));
      return null;
    }
    const payment = summarize(record, config.checkoutMaxFailedAttempts);
    const form = readRefundForm(request.body);
    const refused = (error: string) =>
      show(reply, page, payment.id, 422, { form: { amount: form.amount, reason: form.reason, error } });
    const asked = payment.paid
      ? refundRequestOf(form, payment.paid)
      : { error: 'Only a successful payment can be refunded.' };
    return { page, payment, form, asked, refused };
  }

  /** Service refusals (too much, not enough balance, refunded meanwhile) shown on the form; anything else is the error handler's. */
  function refusedBy(error: unknown, refused: (message: string) => Promise<FastifyReply>): Promise<FastifyReply> {
    if (error instanceof ApiError && error.status < 500) return refused(messageOf(error));
    throw error;
  }

  // The first step writes nothing: it checks the refund as the service will and says what it will do.
  app.post<{ Params: { id: string }; Body: Form }>('/dashboard/payments/:id/refund', FORM, async (request, reply) => {
    const found = await refundAsked(request, reply);
    if (!found) return reply;
    const { page, payment, form, asked, refused } = found;
    if ('error' in asked) return refused(asked.error);
    try {
      const preview = await previewRefund(payments, merchantModeOf(page), payment.refundTarget, asked.request);
      return guard.html(reply, 200, renderRefundConfirmation(page, { payment, preview, form }));
    } catch (error) {
      return refusedBy(error, refused);
    }
  });

  app.post<{ Params: { id: string }; Body: Form }>(
    '/dashboard/payments/:id/refund/confirm',
    FORM,
    async (request, reply) => {
      const found = await refundAsked(request, reply);
      if (!found) return reply;
      const { page, payment, form, asked, refused } = found;
      // Only the confirmation page's form carries the total it was drawn against: anything else starts again there.
      if (form.refundedBefore === null) return refused('Review the refund before confirming it.');
      if ('error' in asked) return refused(asked.error);
      const now = payments.clock.now();
      try {
        const refund = await refundPayment(payments, merchantModeOf(page), payment.refundTarget, asked.request, {
          now,
          refundedBefore: form.refundedBefore,
          alongside: (trx, made) =>
            recordAudit(
              trx,
              {
                merchantId: page.merchant.id,
                userId: page.user.id,
                action: 'refund.create',
                subject: made.refund_id,
                detail: { charge_id: made.charge_id, amount: toMajor(made.amount_minor), currency: made.currency },
              },
              now,
            ),
        });
        return reply.redirect(
          `/dashboard/payments/${encodeURIComponent(payment.id)}?refunded=${encodeURIComponent(refund.refund_id)}`,
          303,
        );
      } catch (error) {
        return refusedBy(error, refused);
      }
    },
  );
}

function messageOf(error: ApiError): string {
  return typeof error.body === 'string' ? error.body : Object.values(error.body).flat().join(' ');
}

/** What the page says after a refund or a retry, of the one it names; a name the page does not show says nothing. */
function noticeOf(query: Query, refunds: RefundWithCharge[], history: PaymentHistory): string | null {
  const refund = refunds.find((one) => one.refund_id === query.refunded);
  if (refund?.pending_reason)
    return `Refund ${refund.refund_id} of ${moneyText(refund.currency, refund.amount_minor)} requested. It waits: ${refund.pending_reason}`;
  if (refund)
    return `Refund ${refund.refund_id} of ${moneyText(refund.currency, refund.amount_minor)} requested. It reaches the customer once the provider confirms it.`;
  const delivery = history.deliveries.find((one) => one.id === query.retried);
  if (delivery) return `Webhook ${delivery.id} is queued to be sent again.`;
  return null;
}
