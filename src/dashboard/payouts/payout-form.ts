import { Ajv } from 'ajv';
import type { FastifySchemaValidationError } from 'fastify';
import { ajvPlugin, AJV_OPTIONS } from '../../http/validation.ts';
import { operatorByCode } from '../../core/operators.ts';
import { bankPayoutFieldErrors } from '../../payouts/bank-payout-errors.ts';
import { destinationOf, type BankPayoutRequest } from '../../payouts/bank-payouts.ts';
import { InitializeBankPayoutBody } from '../../payouts/payout-schemas.ts';
import { ApiError, type FieldErrors } from '../../shared/errors.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { parseMalawiMobile } from '../../shared/phone.ts';
import type { Form } from '../page-context.ts';

/**
 * The new payout form, read as the API's bank payout create (`POST /direct-charge/payouts/initialize`):
 * a wallet is the banks list's wallet of the number's operator, its account number the mobile
 * number, so one service pays both kinds (TNM Mpamba included, which `/mobile-money/payouts` refuses).
 */
export type PayoutKind = 'wallet' | 'bank';

export interface PayoutForm {
  kind: PayoutKind;
  mobile: string;
  bank_uuid: string;
  bank_account_number: string;
  bank_account_name: string;
  amount: string;
  /** The idempotency reference drawn at the confirmation step; empty before it. */
  charge_id: string;
}

/** What the request body of the API is checked against, with the server's own Ajv: its messages are the API's. */
const validateAsCreate = ajvPlugin(new Ajv(AJV_OPTIONS)).compile(InitializeBankPayoutBody);

/** The dashboard's own `charge_id`s: `dash_` and 20 random characters, drawn once per confirmation. */
const DASHBOARD_REFERENCE = /^dash_[A-Za-z0-9]{20}$/;

export const newDashboardReference = (): string => `dash_${randomBase62(20)}`;

export function readPayoutForm(body: Form): PayoutForm {
  const text = (name: keyof PayoutForm) => (body[name] ?? '').trim();
  return {
    kind: body.kind === 'bank' ? 'bank' : 'wallet',
    mobile: text('mobile'),
    bank_uuid: text('bank_uuid'),
    bank_account_number: text('bank_account_number'),
    bank_account_name: text('bank_account_name'),
    amount: text('amount'),
    charge_id: DASHBOARD_REFERENCE.test(text('charge_id')) ? text('charge_id') : '',
  };
}

/**
 * The form as the API's request, checked by the API's schema and the service's own destination
 * check: the request, or the messages by form field. The balance is checked by the caller, then
 * again by the service when it reserves the money.
 */
export function payoutRequestOf(
  form: PayoutForm,
  chargeId: string,
): { request: BankPayoutRequest } | { errors: FieldErrors } {
  const built = bodyOf(form, chargeId);
  if ('errors' in built) return built;
  const { body } = built;
  if (!validateAsCreate(body))
    return {
      errors: byFormField(form, bankPayoutFieldErrors(validateAsCreate.errors as FastifySchemaValidationError[], body)),
    };
  const request = body as unknown as BankPayoutRequest;
  try {
    destinationOf(request);
  } catch (error) {
    if (error instanceof ApiError && typeof error.body === 'object') return { errors: byFormField(form, error.body) };
    throw error;
  }
  return { request };
}

function bodyOf(form: PayoutForm, chargeId: string): { body: Record<string, unknown> } | { errors: FieldErrors } {
  let bankUuid = form.bank_uuid;
  let accountNumber = form.bank_account_number;
  if (form.kind === 'wallet') {
    const wallet = parseMalawiMobile(form.mobile);
    if (!wallet) return { errors: { mobile: ['Enter an Airtel Money or TNM Mpamba number, such as 0991234567.'] } };
    bankUuid = operatorByCode(wallet.operator).ref_id;
    accountNumber = form.mobile;
  }
  // Whole kwacha, as the API takes it; thousands separators are how people write amounts.
  const amount = form.amount.replace(/[\s,]/g, '');
  return {
    body: {
      payout_method: 'bank_transfer',
      bank_uuid: bankUuid,
      amount: /^\d{1,10}$/.test(amount) ? Number(amount) : amount,
      charge_id: chargeId,
      bank_account_name: form.bank_account_name,
      bank_account_number: accountNumber,
    },
  };
}

/** The API names a wallet's number `bank_account_number`; on the form it is the mobile number. */
function byFormField(form: PayoutForm, errors: FieldErrors): FieldErrors {
  if (form.kind !== 'wallet' || !errors.bank_account_number) return errors;
  const { bank_account_number: mobile, ...rest } = errors;
  return { ...rest, mobile };
}
