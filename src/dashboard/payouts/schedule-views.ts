import type { PayoutSchedule } from '../../payouts/schedule-repository.ts';
import { payoutBankByUuid } from '../../payouts/banks.ts';
import { cadenceOf, type ScheduleRequest } from '../../payouts/payout-schedules.ts';
import { cadenceText, RUN_TIME_MINUTES, WEEKDAYS } from '../../payouts/schedule-times.ts';
import type { FieldErrors } from '../../shared/errors.ts';
import { moneyText } from '../../shared/money.ts';
import { localMaskedMobile, maskMsisdn, parseMalawiMobile } from '../../shared/phone.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { csrfField, errorBox } from '../../web/components.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { postButton, shell } from '../layout.ts';
import type { MerchantPage } from '../page-context.ts';
import { field, RECIPIENT_FIELDS, recipientFields } from './payout-views.ts';
import type { SavedRecipient } from './payout-repository.ts';
import type { RecipientChoices, ScheduleForm } from './schedule-form.ts';

type RecipientRow = Pick<SavedRecipient, 'bank_uuid' | 'bank_name' | 'account_name' | 'account_number'>;

/** The time of day runs are made at, as people read it: `08:00`. */
const RUN_TIME = `${String(Math.floor(RUN_TIME_MINUTES / 60)).padStart(2, '0')}:${String(RUN_TIME_MINUTES % 60).padStart(2, '0')}`;

/** The rule every run follows, said once wherever a schedule is shown. */
const RULE =
  'Each run pays out everything in the main balance, less the payout fee, once the balance is at least the minimum; below it, the run pays nothing and the next run tries again.';

/** Who a schedule pays, without the whole account: a wallet's masked number, a bank's name and the account's last four digits. */
export function scheduleRecipientText(recipient: RecipientRow): string {
  const wallet = payoutBankByUuid(recipient.bank_uuid)?.wallet ? parseMalawiMobile(recipient.account_number) : null;
  const where = wallet
    ? `${localMaskedMobile(maskMsisdn(wallet.msisdn))} (${recipient.bank_name})`
    : `${recipient.bank_name}, account ending ${recipient.account_number.slice(-4)}`;
  return `${recipient.account_name}, ${where}`;
}

const whenText = (schedule: Pick<PayoutSchedule, 'frequency' | 'weekday'>, timeZone: string) =>
  `${cadenceText(cadenceOf(schedule))} at ${RUN_TIME} (${timeZone})`;

/** The payouts page's part about automatic payouts: the schedule and its next date, or how to set one up. */
export function automaticPayoutsSection(
  page: MerchantPage,
  schedule: PayoutSchedule | undefined,
  timeZone: string,
): SafeHtml {
  const manage = page.may('payout');
  if (!schedule)
    return html`<section class="automatic" aria-labelledby="automatic-heading"><h2 id="automatic-heading">Automatic payouts</h2>
<p>No automatic payouts in ${page.mode} mode.${manage && ' The main balance can be paid out to you every day or once a week.'}</p>
${manage && html`<p><a class="button secondary" href="/dashboard/payouts/schedule">Set up automatic payouts</a></p>`}</section>`;
  const last =
    schedule.last_run_at !== null &&
    html`<dt>Last run</dt><dd>${formatHumanDate(schedule.last_run_at, timeZone)}: ${schedule.last_result ?? ''}${
      schedule.last_payout_ref && html` <a href="/dashboard/payouts/${schedule.last_payout_ref}">The payout</a>`
    }</dd>`;
  return html`<section class="automatic" aria-labelledby="automatic-heading"><h2 id="automatic-heading">Automatic payouts</h2>
<dl class="facts">
<dt>When</dt><dd>${whenText(schedule, timeZone)}</dd>
<dt>To</dt><dd>${scheduleRecipientText(schedule)}</dd>
<dt>Minimum</dt><dd>${moneyText(schedule.currency, schedule.minimum_minor)}</dd>
<dt>Next payout</dt><dd><strong>${formatHumanDate(schedule.next_run_at, timeZone)}</strong></dd>
${last}
</dl>
<p class="muted">${RULE}</p>
${manage && html`<p class="actions"><a class="button secondary" href="/dashboard/payouts/schedule">Change</a> <a class="button danger" href="/dashboard/payouts/schedule/stop">Stop automatic payouts</a></p>`}</section>`;
}

/** The automatic payouts form: how often, the minimum, and who to pay. */
export function renderScheduleForm(
  page: MerchantPage,
  form: ScheduleForm,
  errors: FieldErrors,
  choices: RecipientChoices,
  timeZone: string,
): SafeHtml {
  const weekdays = WEEKDAYS.map(
    (name, index) =>
      html`<option value="${index + 1}"${form.weekday === String(index + 1) && ' selected'}>${name}</option>`,
  );
  const radio = (value: string, label: string) =>
    html`<label class="radio"><input type="radio" name="recipient" value="${value}"${form.recipient === value ? ' checked' : ''}> ${label}</label>`;
  const recipients = [
    choices.current && radio('current', `${scheduleRecipientText(choices.current)} (as now)`),
    ...choices.saved.map((saved) => radio(saved.payoutRef, scheduleRecipientText(saved))),
    radio('new', 'Someone new'),
  ];
  const recipientError = errors.recipient?.join(' ');
  const weekdayError = errors.weekday?.join(' ');
  const others = Object.entries(errors).filter(
    ([name]) => ![...RECIPIENT_FIELDS, 'minimum', 'recipient', 'weekday'].includes(name),
  );
  return shell(
    'Automatic payouts',
    html`<p><a href="/dashboard/payouts">All payouts</a></p>
<h1>Automatic payouts</h1>
<p>${RULE} Runs are made at ${RUN_TIME} (${timeZone}), in ${page.mode} mode; you confirm on the next page.</p>
${Object.keys(errors).length > 0 && errorBox('Please correct the fields below.')}
${others.map(([, messages]) => errorBox(messages.join(' ')))}
<form class="stack payout-form schedule-form" method="post" action="/dashboard/payouts/schedule/confirm">
${csrfField(page.csrf)}
<fieldset class="choice"><legend>How often</legend>
<label class="radio"><input type="radio" id="frequency-daily" name="frequency" value="daily"${form.frequency === 'daily' ? ' checked' : ''}> Every day</label>
<label class="radio"><input type="radio" id="frequency-weekly" name="frequency" value="weekly"${form.frequency === 'weekly' ? ' checked' : ''}> Once a week</label>
</fieldset>
<div class="field weekday-field"><label for="weekday">Day of the week</label>
<select id="weekday" name="weekday"${weekdayError && html` aria-invalid="true" aria-describedby="weekday-error"`}>${weekdays}</select>
${weekdayError && html`<p class="field-error" id="weekday-error">${weekdayError}</p>`}</div>
${field('minimum', 'Minimum balance (MWK, whole kwacha)', form.minimum, errors, html` inputmode="numeric"`)}
<fieldset class="choice recipients"${recipientError && html` aria-describedby="recipient-error"`}><legend>Pay to</legend>
${recipients}
${recipientError && html`<p class="field-error" id="recipient-error">${recipientError}</p>`}
</fieldset>
<div class="new-recipient stack">
${recipientFields(form, errors)}
</div>
<div class="actions"><button type="submit">Review automatic payouts</button></div>
</form>`,
    { viewer: page.viewer },
  );
}

export interface ScheduleConfirmation {
  form: ScheduleForm;
  request: ScheduleRequest;
  /** Whether it changes a schedule the merchant has, rather than setting up the first. */
  changing: boolean;
  firstRunAt: number;
  timeZone: string;
}

/** The last step: what will happen, and when first; the form carries every field back, so that it is checked again when saved. */
export function renderScheduleConfirmation(page: MerchantPage, confirmation: ScheduleConfirmation): SafeHtml {
  const { form, request, timeZone } = confirmation;
  const bank = payoutBankByUuid(request.recipient.bank_uuid);
  const recipient = scheduleRecipientText({
    bank_uuid: request.recipient.bank_uuid,
    bank_name: bank?.name ?? 'Bank',
    account_name: request.recipient.bank_account_name,
    account_number: request.recipient.bank_account_number,
  });
  const hidden = Object.entries(form).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const save = confirmation.changing ? 'Save the changes' : 'Start automatic payouts';
  return shell(
    'Confirm automatic payouts',
    html`<h1>Confirm automatic payouts</h1>
<dl class="facts">
<dt>When</dt><dd>${cadenceText(request.cadence)} at ${RUN_TIME} (${timeZone})</dd>
<dt>To</dt><dd>${recipient}</dd>
<dt>Minimum</dt><dd>${moneyText('MWK', request.minimumMinor)}</dd>
<dt>First run</dt><dd><strong>${formatHumanDate(confirmation.firstRunAt, timeZone)}</strong></dd>
</dl>
<p>${RULE} Each payout is sent like one you make here, with its fee, in ${page.mode} mode.</p>
<form class="inline" method="post" action="/dashboard/payouts/schedule">${csrfField(page.csrf)}${hidden}<button type="submit">${save}</button></form>
<a class="cancel" href="/dashboard/payouts">Cancel</a>`,
    { viewer: page.viewer },
  );
}

/** The confirmation asked before automatic payouts stop. */
export function renderStopSchedulePage(page: MerchantPage, schedule: PayoutSchedule, timeZone: string): SafeHtml {
  const body = html`<h1>Stop automatic payouts?</h1>
<dl class="facts">
<dt>When</dt><dd>${whenText(schedule, timeZone)}</dd>
<dt>To</dt><dd>${scheduleRecipientText(schedule)}</dd>
<dt>Next payout</dt><dd>${formatHumanDate(schedule.next_run_at, timeZone)}</dd>
</dl>
<p>No more payouts will be made automatically in ${page.mode} mode; payouts already sent are not affected. You can set them up again at any time.</p>
<p class="actions">${postButton('/dashboard/payouts/schedule/stop', page.csrf, 'Stop automatic payouts', 'danger')}<a href="/dashboard/payouts">Keep them</a></p>`;
  return shell('Stop automatic payouts', body, { viewer: page.viewer });
}
