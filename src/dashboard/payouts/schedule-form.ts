import type { ScheduleRequest } from '../../payouts/payout-schedules.ts';
import type { Cadence } from '../../payouts/schedule-times.ts';
import type { FieldErrors } from '../../shared/errors.ts';
import { asChargeRef } from '../../shared/ids.ts';
import type { Form } from '../page-context.ts';
import { payoutRequestOf, type PayoutForm, type PayoutKind } from './payout-form.ts';
import type { SavedRecipient } from './payout-repository.ts';

/**
 * The automatic payouts form: how often, the minimum balance, and who to pay: the schedule's
 * present recipient (`current`), one paid before through the payouts form (by that payout's id),
 * or a new one (`new`), typed as on the payouts form.
 */
export interface ScheduleForm {
  frequency: 'daily' | 'weekly';
  /** `1` (Monday) to `7` (Sunday). */
  weekday: string;
  /** Whole kwacha. */
  minimum: string;
  recipient: string;
  kind: PayoutKind;
  mobile: string;
  bank_uuid: string;
  bank_account_number: string;
  bank_account_name: string;
}

/** The recipients a form may name without typing them: the schedule's own, and those of earlier dashboard payouts. */
export interface RecipientChoices {
  current: Omit<SavedRecipient, 'payoutRef'> | null;
  saved: SavedRecipient[];
}

/** The largest minimum the form takes: ten million kwacha. */
const MAXIMUM_MINIMUM = 10_000_000;

export function readScheduleForm(body: Form): ScheduleForm {
  const text = (name: keyof ScheduleForm) => (body[name] ?? '').trim();
  return {
    frequency: body.frequency === 'weekly' ? 'weekly' : 'daily',
    weekday: text('weekday'),
    minimum: text('minimum'),
    recipient: text('recipient'),
    kind: body.kind === 'bank' ? 'bank' : 'wallet',
    mobile: text('mobile'),
    bank_uuid: text('bank_uuid'),
    bank_account_number: text('bank_account_number'),
    bank_account_name: text('bank_account_name'),
  };
}

/**
 * The form as a schedule, or the messages by form field. A new recipient is checked as the API
 * checks a payout to it (the payouts form's own reading), so a schedule never holds a recipient
 * a payout would refuse; the minimum is whole kwacha, as payouts are.
 */
export function scheduleRequestOf(
  form: ScheduleForm,
  choices: RecipientChoices,
): { request: ScheduleRequest } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const cadence = cadenceOf(form);
  if (!cadence) errors.weekday = ['Choose the day of the week the payout is made on.'];
  const minimum = form.minimum.replace(/[\s,]/g, '');
  const minimumKwacha = /^\d{1,8}$/.test(minimum) ? Number(minimum) : 0;
  if (minimumKwacha < 1 || minimumKwacha > MAXIMUM_MINIMUM)
    errors.minimum = ['Enter the minimum balance in whole kwacha, from 1 to 10,000,000, such as 10000.'];

  const recipient = recipientOf(form, choices);
  if ('errors' in recipient) Object.assign(errors, recipient.errors);
  if (!cadence || 'errors' in recipient || errors.minimum) return { errors };
  return { request: { cadence, minimumMinor: minimumKwacha * 100, recipient: recipient.request } };
}

function cadenceOf(form: ScheduleForm): Cadence | null {
  if (form.frequency === 'daily') return { frequency: 'daily', weekday: null };
  const weekday = /^[1-7]$/.test(form.weekday) ? Number(form.weekday) : null;
  return weekday === null ? null : { frequency: 'weekly', weekday };
}

/** The recipient the form names, checked as a payout of one kwacha to it would be. */
function recipientOf(
  form: ScheduleForm,
  choices: RecipientChoices,
): { request: ScheduleRequest['recipient'] } | { errors: FieldErrors } {
  if (form.recipient === 'new') {
    const checked = payoutRequestOf(asPayoutForm(form), 'schedule');
    return 'errors' in checked ? checked : { request: checked.request };
  }
  const chosen =
    form.recipient === 'current'
      ? choices.current
      : choices.saved.find((saved) => saved.payoutRef === asChargeRef(form.recipient));
  if (!chosen) return { errors: { recipient: ['Choose who the payouts go to.'] } };
  const checked = payoutRequestOf(
    {
      ...asPayoutForm(form),
      kind: 'bank',
      bank_uuid: chosen.bank_uuid,
      bank_account_number: chosen.account_number,
      bank_account_name: chosen.account_name,
    },
    'schedule',
  );
  if ('errors' in checked)
    return { errors: { recipient: ['This recipient can no longer be paid: add it again as new.'] } };
  return { request: checked.request };
}

const asPayoutForm = (form: ScheduleForm): PayoutForm => ({
  kind: form.kind,
  mobile: form.mobile,
  bank_uuid: form.bank_uuid,
  bank_account_number: form.bank_account_number,
  bank_account_name: form.bank_account_name,
  amount: '1',
  charge_id: '',
});
