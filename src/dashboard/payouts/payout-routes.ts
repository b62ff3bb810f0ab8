import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { merchantBalances } from '../../ledger/ledger-service.ts';
import { payoutBankByUuid } from '../../payouts/banks.ts';
import { initializeBankPayout, type BankPayoutRequest } from '../../payouts/bank-payouts.ts';
import { payoutFeeMinor } from '../../payouts/payout-reservation.ts';
import { ApiError, type FieldErrors } from '../../shared/errors.ts';
import { parseMalawiMobile, OPERATOR_NAMES } from '../../shared/phone.ts';
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
import { newDashboardReference, payoutRequestOf, readPayoutForm, type PayoutForm } from './payout-form.ts';
import {
  findPayout,
  findPayoutByChargeId,
  listPayouts,
  PAYOUTS_PER_PAGE,
  type PayoutCursor,
} from './payout-repository.ts';
import { renderPayoutConfirmation, renderPayoutDetail, renderPayoutForm, renderPayoutList } from './payout-views.ts';
import { asChargeRef } from '../../shared/ids.ts';
import { findSchedule } from '../../payouts/schedule-repository.ts';
import { noticeNamed } from '../layout.ts';
import { registerSchedulePages, SCHEDULE_NOTICES } from './schedule-routes.ts';
import { automaticPayoutsSection } from './schedule-views.ts';

const EMPTY_FORM: PayoutForm = {
  kind: 'wallet',
  mobile: '',
  bank_uuid: '',
  bank_account_number: '',
  bank_account_name: '',
  amount: '',
  charge_id: '',
};

/** `<created_at>_<id>` of the last payout shown: where the next page starts. A cursor that is not one is ignored. */
function readCursor(text: string | undefined): PayoutCursor | null {
  const match = /^(\d{1,15})_([A-Za-z0-9_]{1,64})$/.exec(text ?? '');
  return match ? { createdAt: Number(match[1]), id: asChargeRef(match[2]!) } : null;
}

/**
 * Payouts: the list and each payout, and a new payout in two steps. The confirmation step checks
 * the form as the API checks a bank payout create, shows the fee and the balance after, and draws
 * the payout's `charge_id`; the final post hands the same request to the API's service, so a post
 * sent twice is the API's retry of one `charge_id`: one payout, one debit, one audit entry (written
 * in the transaction that records the payout).
 */
export function registerPayoutPages(app: App, deps: DashboardDeps, guard: PageGuard): void {
  const { config, database, payments } = deps;
  registerSchedulePages(app, deps, guard);
  const mainBalance = async (page: MerchantPage) =>
    (await merchantBalances(database.db, page.merchant.id, page.mode, 'MWK')).mainMinor;
  const formAgain = async (reply: FastifyReply, page: MerchantPage, form: PayoutForm, errors: FieldErrors) =>
    guard.html(reply, 422, renderPayoutForm(page, form, errors, await mainBalance(page)));

  app.get<{ Querystring: Query }>('/dashboard/payouts', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const owner = merchantModeOf(page);
    const [rows, schedule] = await Promise.all([
      listPayouts(database.db, owner, readCursor(request.query.before)),
      findSchedule(database.db, owner),
    ]);
    const shown = rows.slice(0, PAYOUTS_PER_PAGE);
    const last = shown.at(-1);
    const next = rows.length > PAYOUTS_PER_PAGE && last ? `${last.created_at}_${last.id}` : null;
    return guard.html(
      reply,
      200,
      renderPayoutList(page, shown, next, config.timeZone, {
        notice: noticeNamed(SCHEDULE_NOTICES, request.query.done),
        automatic: automaticPayoutsSection(page, schedule, config.timeZone),
      }),
    );
  });

  app.get('/dashboard/payouts/new', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'payout');
    if (!page) return reply;
    return guard.html(reply, 200, renderPayoutForm(page, EMPTY_FORM, {}, await mainBalance(page)));
  });

  app.post<{ Body: Form }>('/dashboard/payouts/new/confirm', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'payout');
    if (!page) return reply;
    const form = readPayoutForm(request.body);
    const checked = payoutRequestOf(form, newDashboardReference());
    if ('errors' in checked) return formAgain(reply, page, form, checked.errors);
    const { request: payout } = checked;
    const feeMinor = payoutFeeMinor(payments, payout.amount * 100);
    const mainMinor = await mainBalance(page);
    if (payout.amount * 100 + feeMinor > mainMinor) {
      return formAgain(reply, page, form, {
        amount: [`The amount and its fee (MWK ${(feeMinor / 100).toFixed(2)}) exceed the main balance.`],
      });
    }
    return guard.html(
      reply,
      200,
      renderPayoutConfirmation(page, {
        request: payout,
        form,
        recipient: recipientOf(form, payout),
        feeMinor,
        mainMinor,
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/payouts', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'payout');
    if (!page) return reply;
    const form = readPayoutForm(request.body);
    // Only a form from the confirmation step carries a reference: anything else starts again there.
    if (!form.charge_id) return formAgain(reply, page, form, { form: ['Review the payout before sending it.'] });
    const checked = payoutRequestOf(form, form.charge_id);
    if ('errors' in checked) return formAgain(reply, page, form, checked.errors);
    const owner = merchantModeOf(page);
    const now = payments.clock.now();
    try {
      const { payout } = await initializeBankPayout(payments, owner, checked.request, {
        now,
        alongside: (trx, made) =>
          recordAudit(
            trx,
            {
              merchantId: page.merchant.id,
              userId: page.user.id,
              action: 'payout.create',
              subject: made.id,
              detail: {
                charge_id: made.charge_id,
                amount_minor: made.amount_minor,
                fee_minor: made.fee_minor,
                currency: made.currency,
                bank_uuid: checked.request.bank_uuid,
              },
            },
            now,
          ),
      });
      return reply.redirect(`/dashboard/payouts/${payout.id}?sent=1`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || typeof error.body !== 'object') throw error;
      // Its reference is taken: this form was posted before, and that post made the payout.
      const earlier = error.body.charge_id ? await findPayoutByChargeId(database.db, owner, form.charge_id) : undefined;
      if (earlier) return reply.redirect(`/dashboard/payouts/${earlier.id}?sent=1`, 303);
      return formAgain(reply, page, { ...form, charge_id: '' }, error.body);
    }
  });

  app.get<{ Params: { id: string }; Querystring: Query }>('/dashboard/payouts/:id', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const payout = await findPayout(database.db, merchantModeOf(page), asChargeRef(request.params.id));
    if (!payout) return guard.html(reply, 404, renderNotFoundPage(page.viewer, 'payout'));
    const notice =
      request.query.sent === '1' ? 'The payout was sent. It shows as paid out once the provider confirms it.' : null;
    return guard.html(reply, 200, renderPayoutDetail(page, payout, notice, config.timeZone));
  });
}

/** Where the money will go, written out in full on the confirmation page for the merchant to check. */
function recipientOf(form: PayoutForm, request: BankPayoutRequest): string {
  const wallet = form.kind === 'wallet' ? parseMalawiMobile(form.mobile) : null;
  if (wallet) return `${form.mobile} (${OPERATOR_NAMES[wallet.operator]})`;
  return `${payoutBankByUuid(request.bank_uuid)?.name ?? 'Bank'}, account ${request.bank_account_number}`;
}
