import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import type { RefundWithCharge } from '../../refunds/refund-repository.ts';
import { leftToRefund, refundPayment, refundsOf } from '../../refunds/refund-service.ts';
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
import { renderPaymentPage, summarize, type PaymentSummary, type RefundFormState } from './payment-detail-views.ts';

/** An amount as typed: digits, and at most two decimals. */
const AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,2})?$/;
const REASON_MAX = 500;

/**
 * One payment's page: what was paid, by whom and how (a card by its last four digits only), and
 * everything that happened to it in one timeline; and its refund form, which asks the same
 * refund service as `POST /refunds` and writes the audit entry in the refund's own transaction.
 * A payment of another merchant, or of the other mode, is not found, the same as one that does
 * not exist.
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

  app.post<{ Params: { id: string }; Body: Form }>('/dashboard/payments/:id/refund', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'refund');
    if (!page) return reply;
    const owner = merchantModeOf(page);
    const record = await findPaymentRecord(db, owner, request.params.id);
    if (!record) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payment'));
    const payment = summarize(record, config.checkoutMaxFailedAttempts);
    const typed = { amount: (request.body.amount ?? '').trim(), reason: (request.body.reason ?? '').trim() };
    const refused = (error: string) => show(reply, page, payment.id, 422, { form: { ...typed, error } });
    const amount = amountToRefund(typed.amount, payment);
    if (typeof amount === 'string') return refused(amount);
    if (typed.reason.length > REASON_MAX) return refused(`The reason must be at most ${REASON_MAX} characters.`);
    const now = payments.clock.now();
    try {
      const refund = await refundPayment(
        payments,
        owner,
        payment.refundTarget,
        { amount: amount ?? undefined, reason: typed.reason || undefined },
        {
          now,
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
        },
      );
      return reply.redirect(
        `/dashboard/payments/${encodeURIComponent(payment.id)}?refunded=${encodeURIComponent(refund.refund_id)}`,
        303,
      );
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return refused(messageOf(error));
      throw error;
    }
  });
}

/**
 * The amount the form asks to refund, in major units as the refund service takes it; null for all
 * that is left. The service takes whole units, as the API does: a payment whose rest has cents is
 * refunded whole by leaving the amount as shown. A string is why the amount is refused.
 */
function amountToRefund(typed: string, payment: PaymentSummary): number | null | string {
  if (!AMOUNT_PATTERN.test(typed)) return 'Type the amount to refund as a number, such as 500.';
  const [whole, cents = ''] = typed.split('.');
  const minor = Number(whole) * 100 + Number(cents.padEnd(2, '0'));
  if (minor === 0) return 'The amount must be more than nothing.';
  if (minor % 100 === 0) return minor / 100;
  return payment.paid && minor === leftToRefund(payment.paid) ? null : 'Refund whole amounts, or all that is left.';
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
