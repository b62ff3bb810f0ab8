/**
 * The link's public page, `/pay/{slug}`: the checkout page's shell and look (its stylesheet, CSP
 * and script), so a customer sees one gateway from the link to the receipt. Everything the
 * merchant typed reaches the page through the `html` tag, escaped.
 */
import { cardHead, detailList, page, statusBlock, testBanner } from '../checkout/page/layout.ts';
import { ICONS } from '../checkout/page/icons.ts';
import type { SessionSummary } from '../checkout/page/page-model.ts';
import { moneyText } from '../shared/money.ts';
import { csrfField } from '../web/components.ts';
import { html, type SafeHtml } from '../web/html.ts';
import type { BrandedLink } from './payment-link-repository.ts';
import { customerFieldsOf, type CustomerField, type Unavailability } from './payment-link-service.ts';
import { minimumMinor } from './pay-form.ts';

/** The merchant's brand and the link's words, as the checkout page's header takes them. */
export function linkSummary(link: BrandedLink): SessionSummary {
  return {
    mode: link.mode,
    merchantName: link.merchant_name,
    merchantEmail: link.merchant_email,
    currency: link.currency,
    title: link.title,
    description: link.description,
    logoUrl: link.merchant_logo_url,
    brandColor: link.merchant_brand_color,
    amountText: link.amount_minor === null ? '' : moneyText(link.currency, link.amount_minor),
    customerName: '',
    reference: '',
    txRef: '',
  };
}

export interface PayFormState {
  csrfToken: string;
  /** What the customer typed, shown again with the refusal. */
  values: Partial<Record<'amount' | CustomerField, string>>;
  /** Field → why it was refused. */
  errors: Partial<Record<'amount' | CustomerField, string>>;
}

const FIELDS: ReadonlyArray<{
  field: CustomerField;
  label: string;
  type: string;
  autocomplete: string;
  inputmode?: string;
}> = [
  { field: 'name', label: 'Your name', type: 'text', autocomplete: 'name' },
  { field: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
  { field: 'phone', label: 'Phone number', type: 'tel', autocomplete: 'tel', inputmode: 'tel' },
];

export function renderPayPage(link: BrandedLink, state: PayFormState): SafeHtml {
  const summary = linkSummary(link);
  const asked = customerFieldsOf(link);
  const details = FIELDS.filter(({ field }) => asked[field] !== 'off').map((spec) =>
    input(spec.field, spec.label, asked[spec.field] === 'required', state, {
      type: spec.type,
      autocomplete: spec.autocomplete,
      inputmode: spec.inputmode,
    }),
  );
  const refused = Object.keys(state.errors).length > 0;
  const body = html`${testBanner(summary)}
${cardHead(summary, linkHeading(link, summary))}
<div class="card-body">
${refused && html`<div class="error" role="alert">${ICONS.alert}<p>Check the details below.</p></div>`}
<form method="post" action="/pay/${link.slug}" class="pay-link-form">${csrfField(state.csrfToken)}
${link.amount_minor === null && amountInput(link, state)}
${details}
<button type="submit" class="button" id="continue">Continue to payment</button>
</form>
</div>`;
  return page(`${link.title} · ${link.merchant_name}`, body, { merchant: summary });
}

function linkHeading(link: BrandedLink, summary: SessionSummary): SafeHtml {
  return html`<h1 class="order-title">${link.title}</h1>
${link.description && html`<p class="order-description">${link.description}</p>`}
${link.amount_minor !== null && html`<p class="amount">${summary.amountText}</p>`}`;
}

function amountInput(link: BrandedLink, state: PayFormState): SafeHtml {
  const hint = `At least ${moneyText(link.currency, minimumMinor(link))}, in whole ${link.currency}.`;
  return input('amount', `Amount (${link.currency})`, true, state, {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'off',
    hint,
    pattern: '[0-9]*',
  });
}

/** A labelled field; its refusal is tied to it (aria-describedby), so a screen reader reads why. */
function input(
  name: 'amount' | CustomerField,
  label: string,
  required: boolean,
  state: PayFormState,
  attributes: { type: string; autocomplete: string; inputmode?: string | undefined; hint?: string; pattern?: string },
): SafeHtml {
  const error = state.errors[name];
  const described = [attributes.hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${name}">${label}${!required && html` <span class="muted">(optional)</span>`}</label>
${attributes.hint && html`<p class="hint" id="${name}-hint">${attributes.hint}</p>`}
<input class="input" id="${name}" name="${name}" type="${attributes.type}" autocomplete="${attributes.autocomplete}"${attributes.inputmode && html` inputmode="${attributes.inputmode}"`}${attributes.pattern && html` pattern="${attributes.pattern}"`} value="${state.values[name] ?? ''}"${required && html` required`}${error && html` aria-invalid="true"`}${described && html` aria-describedby="${described}"`}>
${error && html`<p class="field-error" id="${name}-error">${error}</p>`}</div>`;
}

const UNAVAILABLE: Record<Unavailability, { heading: string; sentence: (merchant: string) => string }> = {
  inactive: {
    heading: 'This payment link is not active',
    sentence: (merchant) => `${merchant} has turned it off. Ask them how to pay.`,
  },
  expired: {
    heading: 'This payment link has expired',
    sentence: (merchant) => `Ask ${merchant} for a new payment link.`,
  },
  used_up: {
    heading: 'This payment link has already been paid',
    sentence: (merchant) => `It takes no more payments. Ask ${merchant} if you still want to pay.`,
  },
  held: {
    heading: 'This payment link is not available right now',
    sentence: () =>
      'Someone else is paying it at this moment. If their payment does not go through, the link opens again within 30 minutes.',
  },
};

/** A link that cannot be paid: said plainly, in the merchant's brand; nothing was created. */
export function renderUnavailableLinkPage(link: BrandedLink, why: Unavailability): SafeHtml {
  const summary = linkSummary(link);
  const { heading, sentence } = UNAVAILABLE[why];
  const body = html`${testBanner(summary)}
${cardHead(summary)}
<div class="card-body status" id="link-unavailable" data-why="${why}">
${statusBlock({ tone: 'neutral', icon: why === 'held' ? ICONS.clock : ICONS.ban, heading, sentence: sentence(link.merchant_name) })}
${detailList([['Payment', link.title]])}
</div>`;
  return page(`${heading} · ${link.merchant_name}`, body, { merchant: summary });
}
