import type { CheckoutSession } from '../../core/session-repository.ts';
import type { CustomerFieldSetting } from '../../db/schema.ts';
import type { PaymentLink } from '../../payment-links/payment-link-repository.ts';
import { customerFieldsOf, unavailability } from '../../payment-links/payment-link-service.ts';
import type { FieldErrors } from '../../shared/errors.ts';
import { moneyText } from '../../shared/money.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import { html, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { copyButton, factList, postButton, shell, statusBadge, table } from '../layout.ts';
import type { MerchantPage } from '../page-context.ts';
import { field } from '../payouts/payout-views.ts';
import type { LinkForm } from './link-form.ts';

const priceText = (link: PaymentLink) =>
  link.amount_minor !== null
    ? moneyText(link.currency, link.amount_minor)
    : link.min_amount_minor !== null
      ? `Customer chooses (at least ${moneyText(link.currency, link.min_amount_minor)})`
      : 'Customer chooses';

/** Open, or why it is not: the words the list and the link's page show. */
function stateOf(link: PaymentLink, now: number): SafeHtml {
  const why = unavailability(link, now);
  if (why === null) return html`<span class="status status-success">Open</span>`;
  const words = { inactive: 'Off', expired: 'Expired', used_up: 'Used up', held: 'Open' }[why];
  return html`<span class="status status-failed">${words}</span>`;
}

export function renderLinkList(page: MerchantPage, links: PaymentLink[], now: number): SafeHtml {
  const rows = links.map((link) => [
    html`<a href="/dashboard/payment-links/${link.id}">${link.title}</a>`,
    priceText(link),
    html`<span class="num">${link.payments_count}</span>`,
    html`<span class="num">${moneyText(link.currency, link.amount_collected_minor)}</span>`,
    stateOf(link, now),
  ]);
  const action =
    page.may('links') && html`<p><a class="button" href="/dashboard/payment-links/new">New payment link</a></p>`;
  return shell(
    'Payment links',
    html`<h1>Payment links</h1>
<p>A page anyone can pay, to share on WhatsApp, print as a QR code at the counter or send by email: no website needed.</p>
${action}
${table('Payment links, newest first', ['Title', 'Amount', 'Payments', 'Collected', 'State'], rows, `No payment links in ${page.mode} mode yet.`)}`,
    { viewer: page.viewer },
  );
}

function settingSelect(name: 'name' | 'email' | 'phone', label: string, value: CustomerFieldSetting): SafeHtml {
  const options = (['off', 'optional', 'required'] as const).map(
    (option) =>
      html`<option value="${option}"${option === value && ' selected'}>${{ off: 'Not asked', optional: 'Optional', required: 'Required' }[option]}</option>`,
  );
  return html`<div class="field"><label for="${name}">${label}</label><select id="${name}" name="${name}">${options}</select></div>`;
}

function radio(name: string, value: string, checked: boolean, label: string): SafeHtml {
  return html`<label class="radio"><input type="radio" id="${name}-${value}" name="${name}" value="${value}"${checked && ' checked'}> ${label}</label>`;
}

export function renderLinkForm(page: MerchantPage, form: LinkForm, errors: FieldErrors): SafeHtml {
  const known = ['title', 'description', 'amount', 'min_amount', 'max_payments', 'expires_on', 'redirect_url'];
  const others = Object.entries(errors).filter(([name]) => !known.includes(name));
  const descriptionError = errors.description?.join(' ');
  return shell(
    'New payment link',
    html`<p><a href="/dashboard/payment-links">All payment links</a></p>
<h1>New payment link</h1>
${Object.keys(errors).length > 0 && errorBox('Please correct the fields below.')}
${others.map(([, messages]) => errorBox(messages.join(' ')))}
<form class="stack link-form" method="post" action="/dashboard/payment-links">
${csrfField(page.csrf)}
${field('title', 'Title (what is being paid for)', form.title, errors, html` maxlength="100" required`)}
<div class="field"><label for="description">Description (optional)</label>
<textarea id="description" name="description" maxlength="500" rows="3"${descriptionError && html` aria-invalid="true" aria-describedby="description-error"`}>${form.description}</textarea>
${descriptionError && html`<p class="field-error" id="description-error">${descriptionError}</p>`}</div>
<fieldset class="choice"><legend>Amount</legend>
${radio('pricing', 'fixed', form.pricing === 'fixed', 'A fixed amount')}
${radio('pricing', 'chosen', form.pricing === 'chosen', 'The customer types the amount')}
</fieldset>
${field('amount', 'Fixed amount (whole units)', form.amount, errors, html` inputmode="numeric"`)}
${field('min_amount', 'Or, for a typed amount, the least it may be (optional)', form.min_amount, errors, html` inputmode="numeric"`)}
<div class="field"><label for="currency">Currency</label><select id="currency" name="currency"><option value="MWK"${form.currency === 'MWK' && ' selected'}>MWK</option><option value="USD"${form.currency === 'USD' && ' selected'}>USD</option></select></div>
<fieldset class="choice"><legend>Payments</legend>
${radio('use', 'reusable', form.use === 'reusable', 'Anyone may pay it, many times')}
${radio('use', 'single', form.use === 'single', 'Paid once, then closed')}
</fieldset>
${field('max_payments', 'At most this many payments (optional)', form.max_payments, errors, html` inputmode="numeric"`)}
<div class="field"><label for="expires_on">Closes after (optional)</label>
<input type="date" id="expires_on" name="expires_on" value="${form.expires_on}"${errors.expires_on && html` aria-invalid="true" aria-describedby="expires_on-error"`}>
${errors.expires_on && html`<p class="field-error" id="expires_on-error">${errors.expires_on.join(' ')}</p>`}</div>
<fieldset class="choice"><legend>Details to ask the customer</legend>
${settingSelect('name', 'Name', form.name)}
${settingSelect('email', 'Email', form.email)}
${settingSelect('phone', 'Phone number', form.phone)}
</fieldset>
${field('redirect_url', 'After paying, send the customer to (optional web address)', form.redirect_url, errors, html` inputmode="url"`)}
<div class="actions"><button type="submit">Create payment link</button></div>
</form>`,
    { viewer: page.viewer },
  );
}

export interface LinkPageState {
  url: string;
  qrDataUrl: string;
  pngUrl: string;
  payments: CheckoutSession[];
  now: number;
  timeZone: string;
  notice: string | null;
  errors: FieldErrors;
}

/** The link's own page: how to share it, what it takes, what it collected, and its few changes. */
export function renderLinkPage(page: MerchantPage, link: PaymentLink, state: LinkPageState): SafeHtml {
  const asked = customerFieldsOf(link);
  const askedText =
    (['name', 'email', 'phone'] as const)
      .filter((f) => asked[f] !== 'off')
      .map((f) => `${f} (${asked[f]})`)
      .join(', ') || 'nothing';
  const shareText = `${link.title}: ${state.url}`;
  const facts: Array<[string, HtmlValue]> = [
    ['State', stateOf(link, state.now)],
    ['Amount', priceText(link)],
    [
      'Payments',
      link.reusable === 0 ? 'Paid once' : link.max_payments === null ? 'Unlimited' : `At most ${link.max_payments}`,
    ],
    ['Closes', link.expires_at === null ? 'Never' : formatHumanDate(link.expires_at, state.timeZone)],
    ['Asks for', askedText],
    ['Paid', `${link.payments_count} × · ${moneyText(link.currency, link.amount_collected_minor)} collected`],
  ];
  const rows = state.payments.map((session) => [
    html`<a href="/dashboard/payments/${session.id}">${formatHumanDate(session.completed_at ?? session.created_at, state.timeZone)}</a>`,
    [session.first_name, session.last_name].filter(Boolean).join(' '),
    html`<span class="num">${moneyText(session.currency, session.amount_minor)}</span>`,
    statusBadge(session.status),
  ]);
  const canChange = page.may('links');
  const toggle =
    canChange &&
    postButton(
      `/dashboard/payment-links/${link.id}/active`,
      page.csrf,
      link.active === 1 ? 'Turn the link off' : 'Turn the link on again',
      link.active === 1 ? 'danger' : '',
      { active: link.active === 1 ? '0' : '1' },
    );
  const titleError = state.errors.title?.join(' ');
  const edit =
    canChange &&
    html`<h2>Words on the page</h2>
<form class="stack" method="post" action="/dashboard/payment-links/${link.id}">
${csrfField(page.csrf)}
${field('title', 'Title', link.title, state.errors, html` maxlength="100" required`)}
<div class="field"><label for="description">Description</label>
<textarea id="description" name="description" maxlength="500" rows="3">${link.description ?? ''}</textarea></div>
<div class="actions"><button type="submit">Save</button></div>
</form>`;
  return shell(
    link.title,
    html`<p><a href="/dashboard/payment-links">All payment links</a></p>
<h1>${link.title}</h1>
${noticeBox(state.notice)}
${titleError && errorBox(titleError)}
<h2>Share</h2>
<p class="link-url"><code id="link-url">${state.url}</code>${copyButton(state.url, 'payment link')}</p>
<p class="share"><a class="button" id="share-whatsapp" href="https://wa.me/?text=${encodeURIComponent(shareText)}">Share on WhatsApp</a> <a class="button secondary" id="share-email" href="mailto:?subject=${encodeURIComponent(link.title)}&amp;body=${encodeURIComponent(shareText)}">Send by email</a></p>
<img class="qr" id="link-qr" src="${state.qrDataUrl}" alt="QR code of the payment link" width="200" height="200">
<p><a href="${state.pngUrl}" download>Download the QR code for printing (PNG, 1024 px)</a></p>
${factList(facts)}
${toggle && html`<p>${toggle}</p>`}
<h2>Payments</h2>
${table('Payments made through this link, newest first', ['Paid', 'Customer', 'Amount', 'Status'], rows, 'Nobody has paid through this link yet.')}
${edit}`,
    { viewer: page.viewer },
  );
}
