import type { Form } from '../http/json-body.ts';
import { parseMalawiMobile } from '../shared/phone.ts';
import type { PaymentLink } from './payment-link-repository.ts';
import { customerFieldsOf, type CustomerEntry, type CustomerField } from './payment-link-service.ts';

/** The least a checkout session takes (one whole unit), or the link's own minimum when higher. */
export function minimumMinor(link: PaymentLink): number {
  return Math.max(100, link.min_amount_minor ?? 0);
}

const MAX_AMOUNT = 2_147_483_647;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_TEXT = 255;

export type PayFormResult =
  | { entry: CustomerEntry }
  | {
      errors: Partial<Record<'amount' | CustomerField, string>>;
      values: Partial<Record<'amount' | CustomerField, string>>;
    };

/** The link page's form, checked against what the link asks: the entry, or each refused field with why. */
export function readPayForm(link: PaymentLink, form: Form): PayFormResult {
  const values = {
    amount: (form.amount ?? '').trim(),
    name: (form.name ?? '').trim(),
    email: (form.email ?? '').trim(),
    phone: (form.phone ?? '').trim(),
  };
  const errors: Partial<Record<'amount' | CustomerField, string>> = {};
  const amountMinor = link.amount_minor ?? amountOf(link, values.amount, errors);
  const asked = customerFieldsOf(link);
  for (const field of ['name', 'email', 'phone'] as const) {
    if (asked[field] === 'off') values[field] = '';
    else if (values[field] === '') {
      if (asked[field] === 'required') errors[field] = `Enter your ${field === 'phone' ? 'phone number' : field}.`;
    } else if (values[field].length > MAX_TEXT) errors[field] = 'This is too long.';
  }
  if (values.email && !errors.email && !EMAIL.test(values.email))
    errors.email = 'Enter an email address like name@example.com.';
  if (values.phone && !errors.phone && parseMalawiMobile(values.phone) === null)
    errors.phone = 'Enter a Malawi mobile number, like 0991234567.';
  if (Object.keys(errors).length > 0) return { errors, values };
  return {
    entry: {
      amountMinor,
      name: values.name || undefined,
      email: values.email || undefined,
      phone: values.phone || undefined,
    },
  };
}

function amountOf(link: PaymentLink, text: string, errors: Partial<Record<'amount', string>>): number {
  const minimum = minimumMinor(link);
  const whole = /^[0-9]{1,10}$/.test(text.replace(/[,\s]/g, '')) ? Number(text.replace(/[,\s]/g, '')) : NaN;
  if (Number.isNaN(whole)) errors.amount = `Enter the amount in whole ${link.currency}, like ${minimum / 100}.`;
  else if (whole * 100 < minimum) errors.amount = `The amount must be at least ${minimum / 100} ${link.currency}.`;
  else if (whole > MAX_AMOUNT) errors.amount = 'The amount is too large.';
  return whole * 100;
}
