import type { FieldErrors } from '../../shared/errors.ts';
import type { LinkInput } from '../../payment-links/payment-link-service.ts';
import type { CustomerFieldSetting } from '../../db/schema.ts';
import type { Form } from '../page-context.ts';

/** The new link form as typed, shown again when refused. */
export interface LinkForm {
  title: string;
  description: string;
  pricing: 'fixed' | 'chosen';
  amount: string;
  min_amount: string;
  currency: 'MWK' | 'USD';
  use: 'reusable' | 'single';
  max_payments: string;
  expires_on: string;
  name: CustomerFieldSetting;
  email: CustomerFieldSetting;
  phone: CustomerFieldSetting;
  redirect_url: string;
}

export const EMPTY_LINK_FORM: LinkForm = {
  title: '',
  description: '',
  pricing: 'fixed',
  amount: '',
  min_amount: '',
  currency: 'MWK',
  use: 'reusable',
  max_payments: '',
  expires_on: '',
  name: 'required',
  email: 'off',
  phone: 'optional',
  redirect_url: '',
};

const setting = (text: string | undefined, fallback: CustomerFieldSetting): CustomerFieldSetting =>
  text === 'off' || text === 'optional' || text === 'required' ? text : fallback;

export function readLinkForm(body: Form): LinkForm {
  const text = (name: string) => (body[name] ?? '').trim();
  return {
    title: text('title'),
    description: text('description'),
    pricing: body.pricing === 'chosen' ? 'chosen' : 'fixed',
    amount: text('amount'),
    min_amount: text('min_amount'),
    currency: body.currency === 'USD' ? 'USD' : 'MWK',
    use: body.use === 'single' ? 'single' : 'reusable',
    max_payments: text('max_payments'),
    expires_on: text('expires_on'),
    name: setting(body.name, 'off'),
    email: setting(body.email, 'off'),
    phone: setting(body.phone, 'off'),
    redirect_url: text('redirect_url'),
  };
}

const WHOLE = /^[0-9]{1,10}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The form as the API's create takes it: whole numbers where the API takes them, the expiry as the
 * end of the chosen day in the gateway's zone. What the API checks (a past expiry, the title's
 * length) is left to it, so the two refuse alike.
 */
export function linkInputOf(
  form: LinkForm,
  endOfDay: (date: string) => number | null,
): { input: LinkInput } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const whole = (name: 'amount' | 'min_amount' | 'max_payments', value: string, label: string) => {
    if (value === '') return undefined;
    if (!WHOLE.test(value.replace(/,/g, '')) || Number(value.replace(/,/g, '')) < 1) {
      errors[name] = [`The ${label} must be a whole number of at least 1.`];
      return undefined;
    }
    return Number(value.replace(/,/g, ''));
  };
  const amount = form.pricing === 'fixed' ? whole('amount', form.amount, 'amount') : undefined;
  if (form.pricing === 'fixed' && form.amount === '')
    errors.amount = ['Enter the amount, or let the customer choose it.'];
  const minAmount = form.pricing === 'chosen' ? whole('min_amount', form.min_amount, 'minimum') : undefined;
  const maxPayments = form.use === 'reusable' ? whole('max_payments', form.max_payments, 'limit') : undefined;
  if (form.title === '') errors.title = ['Enter a title: it is what the customer sees first.'];
  const expiresAt = form.expires_on === '' ? undefined : DATE.test(form.expires_on) ? endOfDay(form.expires_on) : null;
  if (expiresAt === null) errors.expires_on = ['Choose a date.'];
  if (Object.keys(errors).length > 0) return { errors };
  return {
    input: {
      title: form.title,
      description: form.description || undefined,
      amount,
      min_amount: minAmount,
      currency: form.currency,
      reusable: form.use === 'reusable',
      max_payments: maxPayments,
      expires_at: expiresAt ?? undefined,
      customer_fields: { name: form.name, email: form.email, phone: form.phone },
      redirect_url: form.redirect_url || undefined,
    },
  };
}
