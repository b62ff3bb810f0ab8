import { PAYOUT_BANKS } from '../../payouts/banks.ts';
import type { BankPayoutRequest } from '../../payouts/bank-payouts.ts';
import type { FieldErrors } from '../../shared/errors.ts';
import { html, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { localMaskedMobile, OPERATOR_NAMES } from '../../shared/phone.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { confirmForm, copyButton, factList, shell, statusBadge, table } from '../layout.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import { moneyText } from '../../shared/money.ts';
import type { MerchantPage } from '../page-context.ts';
import type { PayoutForm } from './payout-form.ts';
import type { PayoutRow } from './payout-repository.ts';

/** Where the money went, without the whole account: a wallet's masked number, a bank's name and the account's last four digits. */
export function recipientText(payout: PayoutRow): string {
  if (payout.mobile !== null)
    return `${localMaskedMobile(payout.mobile)} (${payout.bank_name ?? (payout.operator ? OPERATOR_NAMES[payout.operator] : 'mobile money')})`;
  if (payout.bank_name && payout.account_number)
    return `${payout.bank_name}, account ending ${payout.account_number.slice(-4)}`;
  return 'Unknown recipient';
}

/** The list, after the notice of what a form just did and the automatic payouts' section. */
export function renderPayoutList(
  page: MerchantPage,
  rows: PayoutRow[],
  next: string | null,
  timeZone: string,
  above: { notice: string | null; automatic: SafeHtml },
): SafeHtml {
  const cells = rows.map((payout) => [
    html`<a href="/dashboard/payouts/${payout.id}">${formatHumanDate(payout.created_at, timeZone)}</a>`,
    recipientText(payout),
    html`<span class="num">${moneyText(payout.currency, payout.amount_minor)}</span>`,
    statusBadge(payout.status),
    html`<code>${payout.charge_id}</code>`,
  ]);
  const action = page.may('payout') && html`<p><a class="button" href="/dashboard/payouts/new">New payout</a></p>`;
  const more = next && html`<p><a href="/dashboard/payouts?before=${next}">Older payouts</a></p>`;
  return shell(
    'Payouts',
    html`<h1>Payouts</h1>
${noticeBox(above.notice)}
${above.automatic}
<h2>All payouts</h2>
${action}
${table('Payouts, newest first', ['Created', 'Recipient', 'Amount', 'Status', 'Reference'], cells, `No payouts in ${page.mode} mode yet.`)}
${more}`,
    { viewer: page.viewer },
  );
}

export function renderPayoutDetail(
  page: MerchantPage,
  payout: PayoutRow,
  notice: string | null,
  timeZone: string,
): SafeHtml {
  const when = (epochMs: number | null) => (epochMs === null ? html`—` : formatHumanDate(epochMs, timeZone));
  const facts: Array<[string, HtmlValue]> = [
    ['Status', statusBadge(payout.status)],
    ['Amount', moneyText(payout.currency, payout.amount_minor)],
    ['Fee', moneyText(payout.currency, payout.fee_minor)],
    ['Total debited', moneyText(payout.currency, payout.amount_minor + payout.fee_minor)],
    ['Recipient', recipientText(payout)],
    ...(payout.account_name ? [['Account name', payout.account_name] as [string, string]] : []),
    ['Reference', html`<code>${payout.charge_id}</code>${copyButton(payout.charge_id, 'payout reference')}`],
    ['Created', when(payout.created_at)],
    ['Completed', when(payout.completed_at)],
    ...(payout.failure_reason ? [['Failure reason', payout.failure_reason] as [string, string]] : []),
  ];
  return shell(
    'Payout',
    html`<p><a href="/dashboard/payouts">All payouts</a></p>
<h1>Payout of ${moneyText(payout.currency, payout.amount_minor)}</h1>
${noticeBox(notice)}
<dl class="facts">${facts.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`,
    { viewer: page.viewer },
  );
}

/** One input with its label and, when it was wrong, its message tied to it for screen readers. */
export function field(name: string, label: string, value: string, errors: FieldErrors, attributes = html``): SafeHtml {
  const message = errors[name]?.join(' ');
  const described = message && html` aria-invalid="true" aria-describedby="${name}-error"`;
  return html`<div class="field"><label for="${name}">${label}</label>
<input type="text" id="${name}" name="${name}" value="${value}"${attributes}${described}>
${message && html`<p class="field-error" id="${name}-error">${message}</p>`}</div>`;
}

/** The fields naming who a payout goes to (a wallet, or a bank and account) and the holder's name: the payouts form's, and a new recipient's on the automatic payouts form. */
export const RECIPIENT_FIELDS = ['mobile', 'bank_uuid', 'bank_account_number', 'bank_account_name'];

export function recipientFields(
  form: Pick<PayoutForm, 'kind' | 'mobile' | 'bank_uuid' | 'bank_account_number' | 'bank_account_name'>,
  errors: FieldErrors,
): SafeHtml {
  const banks = PAYOUT_BANKS.filter((bank) => bank.wallet === null).map(
    (bank) => html`<option value="${bank.uuid}"${bank.uuid === form.bank_uuid && ' selected'}>${bank.name}</option>`,
  );
  const bankError = errors.bank_uuid?.join(' ');
  return html`<fieldset class="choice"><legend>Send to</legend>
<label class="radio"><input type="radio" id="kind-wallet" name="kind" value="wallet"${form.kind === 'wallet' ? ' checked' : ''}> Mobile money wallet</label>
<label class="radio"><input type="radio" id="kind-bank" name="kind" value="bank"${form.kind === 'bank' ? ' checked' : ''}> Bank account</label>
</fieldset>
<div class="wallet-fields">
${field('mobile', 'Mobile number (Airtel Money or TNM Mpamba)', form.mobile, errors, html` inputmode="tel" autocomplete="off"`)}
</div>
<div class="bank-fields">
<div class="field"><label for="bank_uuid">Bank</label>
<select id="bank_uuid" name="bank_uuid"${bankError && html` aria-invalid="true" aria-describedby="bank_uuid-error"`}>${banks}</select>
${bankError && html`<p class="field-error" id="bank_uuid-error">${bankError}</p>`}</div>
${field('bank_account_number', 'Account number', form.bank_account_number, errors, html` inputmode="numeric" autocomplete="off"`)}
</div>
${field('bank_account_name', 'Account holder’s name', form.bank_account_name, errors, html` autocomplete="off"`)}`;
}

export function renderPayoutForm(
  page: MerchantPage,
  form: PayoutForm,
  errors: FieldErrors,
  mainMinor: number,
): SafeHtml {
  const others = Object.entries(errors).filter(([name]) => ![...RECIPIENT_FIELDS, 'amount'].includes(name));
  return shell(
    'New payout',
    html`<p><a href="/dashboard/payouts">All payouts</a></p>
<h1>New payout</h1>
<p>Main balance: <strong>${moneyText('MWK', mainMinor)}</strong>. Payouts are paid from the main balance, in kwacha; you confirm the fee on the next page.</p>
${Object.keys(errors).length > 0 && errorBox('Please correct the fields below.')}
${others.map(([, messages]) => errorBox(messages.join(' ')))}
<form class="stack payout-form" method="post" action="/dashboard/payouts/new/confirm">
${csrfField(page.csrf)}
${recipientFields(form, errors)}
${field('amount', 'Amount (MWK, whole kwacha)', form.amount, errors, html` inputmode="numeric"`)}
<div class="actions"><button type="submit">Review payout</button></div>
</form>`,
    { viewer: page.viewer },
  );
}

export interface Confirmation {
  request: BankPayoutRequest;
  form: PayoutForm;
  recipient: string;
  feeMinor: number;
  mainMinor: number;
}

/** The last step: what will leave the balance and what stays; the form carries the request and its reference, so posting it twice pays once. */
export function renderPayoutConfirmation(page: MerchantPage, confirmation: Confirmation): SafeHtml {
  const { request, form, feeMinor, mainMinor } = confirmation;
  const amountMinor = request.amount * 100;
  const total = amountMinor + feeMinor;
  return shell(
    'Confirm payout',
    html`<h1>Confirm the payout</h1>
${factList([
  ['To', confirmation.recipient],
  ['Account holder', request.bank_account_name],
  ['Amount', moneyText('MWK', amountMinor)],
  ['Fee', moneyText('MWK', feeMinor)],
  ['Total debited', html`<strong>${moneyText('MWK', total)}</strong>`],
  ['Main balance now', moneyText('MWK', mainMinor)],
  ['Main balance after', html`<strong>${moneyText('MWK', mainMinor - total)}</strong>`],
])}
${confirmForm({
  action: '/dashboard/payouts',
  csrf: page.csrf,
  label: `Send ${moneyText('MWK', amountMinor)}`,
  fields: { ...form, charge_id: request.charge_id },
  back: '/dashboard/payouts',
  kind: '',
})}`,
    { viewer: page.viewer },
  );
}
