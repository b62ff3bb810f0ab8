import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { savePayoutSchedule, stopPayoutSchedule, type ScheduleRequest } from '../../payouts/payout-schedules.ts';
import { findSchedule, type PayoutSchedule } from '../../payouts/schedule-repository.ts';
import { nextRunAfter } from '../../payouts/schedule-times.ts';
import { ApiError, type FieldErrors } from '../../shared/errors.ts';
import { recordAudit } from '../../users/audit.ts';
import {
  FORM,
  PAGE,
  merchantModeOf,
  type DashboardDeps,
  type Form,
  type MerchantPage,
  type PageGuard,
} from '../page-context.ts';
import { savedRecipients } from './payout-repository.ts';
import { readScheduleForm, scheduleRequestOf, type RecipientChoices, type ScheduleForm } from './schedule-form.ts';
import { renderScheduleConfirmation, renderScheduleForm, renderStopSchedulePage } from './schedule-views.ts';

/** The notices the payouts page shows after a change here (`?done=`). */
export const SCHEDULE_NOTICES: Record<string, string> = {
  schedule_saved: 'Automatic payouts are saved. The next one is shown below.',
  schedule_stopped: 'Automatic payouts are stopped. Payouts already sent are not affected.',
};

/** The form as a schedule it shows: its values, or, for a merchant without one, a weekly Monday payout to someone new. */
function formOf(schedule: PayoutSchedule | undefined): ScheduleForm {
  return {
    frequency: schedule?.frequency ?? 'weekly',
    weekday: String(schedule?.weekday ?? 1),
    minimum: schedule ? String(schedule.minimum_minor / 100) : '',
    recipient: schedule ? 'current' : 'new',
    kind: 'wallet',
    mobile: '',
    bank_uuid: '',
    bank_account_number: '',
    bank_account_name: '',
  };
}

/**
 * Automatic payouts (docs/dashboard/README.md#automatic-payouts): set up or changed in two steps, the
 * second showing when the first run will be, and stopped after a confirmation; only who may pay
 * out (the owner) may do either. Each save and stop writes its audit entry in its transaction.
 */
export function registerSchedulePages(app: App, { config, database, payments }: DashboardDeps, guard: PageGuard): void {
  const choicesFor = async (page: MerchantPage, schedule: PayoutSchedule | undefined): Promise<RecipientChoices> => ({
    current: schedule ?? null,
    saved: await savedRecipients(database.db, merchantModeOf(page)),
  });
  const formAgain = async (reply: FastifyReply, page: MerchantPage, form: ScheduleForm, errors: FieldErrors) => {
    const schedule = await findSchedule(database.db, merchantModeOf(page));
    const choices = await choicesFor(page, schedule);
    return guard.html(reply, 422, renderScheduleForm(page, form, errors, choices, config.timeZone));
  };
  /** The posted form as a schedule, with the schedule it would change; or the form again with its messages. */
  const checked = async (page: MerchantPage, form: ScheduleForm) => {
    const schedule = await findSchedule(database.db, merchantModeOf(page));
    return { schedule, ...scheduleRequestOf(form, await choicesFor(page, schedule)) };
  };

  app.get('/dashboard/payouts/schedule', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'payout');
    if (!page) return reply;
    const schedule = await findSchedule(database.db, merchantModeOf(page));
    const choices = await choicesFor(page, schedule);
    return guard.html(reply, 200, renderScheduleForm(page, formOf(schedule), {}, choices, config.timeZone));
  });

  app.post<{ Body: Form }>('/dashboard/payouts/schedule/confirm', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'payout');
    if (!page) return reply;
    const form = readScheduleForm(request.body);
    const result = await checked(page, form);
    if ('errors' in result) return formAgain(reply, page, form, result.errors);
    return guard.html(
      reply,
      200,
      renderScheduleConfirmation(page, {
        form,
        request: result.request,
        changing: result.schedule !== undefined,
        firstRunAt: nextRunAfter(result.request.cadence, payments.clock.now(), config.timeZone),
        timeZone: config.timeZone,
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/payouts/schedule', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'payout');
    if (!page) return reply;
    const form = readScheduleForm(request.body);
    const result = await checked(page, form);
    if ('errors' in result) return formAgain(reply, page, form, result.errors);
    try {
      await save(page, result.request, result.schedule);
    } catch (error) {
      if (error instanceof ApiError && typeof error.body === 'object') return formAgain(reply, page, form, error.body);
      throw error;
    }
    return reply.redirect('/dashboard/payouts?done=schedule_saved', 303);
  });

  const save = (page: MerchantPage, request: ScheduleRequest, before: PayoutSchedule | undefined) => {
    const now = payments.clock.now();
    return savePayoutSchedule(payments, merchantModeOf(page), request, {
      now,
      alongside: (trx, schedule) =>
        recordAudit(
          trx,
          {
            merchantId: page.merchant.id,
            userId: page.user.id,
            action: 'payout_schedule.save',
            subject: schedule.id,
            detail: { mode: schedule.mode, ...scheduleDetail(schedule, before) },
          },
          now,
        ),
    });
  };

  app.get('/dashboard/payouts/schedule/stop', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'payout');
    if (!page) return reply;
    const schedule = await findSchedule(database.db, merchantModeOf(page));
    if (!schedule) return reply.redirect('/dashboard/payouts', 303);
    return guard.html(reply, 200, renderStopSchedulePage(page, schedule, config.timeZone));
  });

  app.post<{ Body: Form }>('/dashboard/payouts/schedule/stop', FORM, async (request, reply) => {
    const page = await guard.merchantForm(request, reply, 'payout');
    if (!page) return reply;
    const now = payments.clock.now();
    await stopPayoutSchedule(payments, merchantModeOf(page), {
      alongside: (trx, schedule) =>
        recordAudit(
          trx,
          {
            merchantId: page.merchant.id,
            userId: page.user.id,
            action: 'payout_schedule.stop',
            subject: schedule.id,
            detail: { mode: schedule.mode, ...scheduleDetail(schedule) },
          },
          now,
        ),
    });
    return reply.redirect('/dashboard/payouts?done=schedule_stopped', 303);
  });
}

/**
 * What the audit log keeps of a schedule, each change as `{from, to}` when it changed one: never a
 * whole account number (its last four digits, as pages show it).
 */
function scheduleDetail(schedule: PayoutSchedule, before?: PayoutSchedule): Record<string, unknown> {
  const kept = (row: PayoutSchedule): Record<string, unknown> => ({
    frequency: row.frequency,
    weekday: row.weekday,
    minimum_minor: row.minimum_minor,
    bank_uuid: row.bank_uuid,
    account_ending: row.account_number.slice(-4),
  });
  const now = kept(schedule);
  if (!before) return now;
  const then = kept(before);
  return Object.fromEntries(
    Object.entries(now).map(([key, value]) => [key, then[key] === value ? value : { from: then[key], to: value }]),
  );
}
