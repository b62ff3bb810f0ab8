import type { Charge } from '../../core/charge-repository.ts';
import { leftToRefund, type RefundRequest } from '../../refunds/refund-service.ts';
import type { Form } from '../page-context.ts';

/** An amount as typed: digits, and at most two decimals. */
const AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,2})?$/;
const REASON_MAX = 500;

/**
 * The refund form as posted, from the payment's page or from the confirmation page (which posts
 * back what it showed, with the refunded total it was drawn against).
 */
export interface RefundForm {
  /** As typed; empty until the merchant types one. */
  amount: string;
  /** "Full refund" was chosen: all that is left, whatever the amount says. */
  full: boolean;
  reason: string;
  /** The payment's refunded total when the confirmation page was drawn; null for a form that did not come from it. */
  refundedBefore: number | null;
}

export function readRefundForm(body: Form): RefundForm {
  const refunded = (body.refunded ?? '').trim();
  return {
    amount: (body.amount ?? '').trim(),
    full: body.full === '1',
    reason: (body.reason ?? '').trim(),
    refundedBefore: /^\d{1,15}$/.test(refunded) ? Number(refunded) : null,
  };
}

/**
 * The refund the form asks for, as the refund service takes it, or why it cannot be asked for.
 * The service takes whole major units, as the API does, and no amount for all that is left: a
 * payment whose rest has cents is refunded whole with Full refund, or by typing all of it.
 */
export function refundRequestOf(form: RefundForm, paid: Charge): { request: RefundRequest } | { error: string } {
  if (form.reason.length > REASON_MAX) return { error: `The reason must be at most ${REASON_MAX} characters.` };
  const reason = form.reason || undefined;
  if (form.full) return { request: { reason } };
  if (form.amount === '') return { error: 'Type the amount to refund, or choose Full refund.' };
  if (!AMOUNT_PATTERN.test(form.amount)) return { error: 'Type the amount to refund as a number, such as 500.' };
  const [whole, cents = ''] = form.amount.split('.');
  const minor = Number(whole) * 100 + Number(cents.padEnd(2, '0'));
  if (minor === 0) return { error: 'The amount must be more than nothing.' };
  if (minor % 100 === 0) return { request: { amount: minor / 100, reason } };
  if (minor === leftToRefund(paid)) return { request: { reason } };
  return { error: 'Refund whole amounts, or all that is left.' };
}

/** Minor units as a plain major amount to type: `1000`, or `1000.50`. */
export const majorText = (minor: number): string =>
  minor % 100 === 0 ? String(minor / 100) : (minor / 100).toFixed(2);
