import type { EmailsTable } from '../db/schema.ts';
import { describeAuthorization } from '../shared/payment-methods.ts';
import { html, joinHtml } from '../web/html.ts';
import { moneyText, toMinor } from '../shared/money.ts';
import { formatHumanDate } from '../shared/time.ts';
import { isBrandColor, isBrandLogoUrl } from '../merchants/merchant-service.ts';

export type ReceiptKind = EmailsTable['kind'];

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

/** What a receipt tells about a payment, as display text (never more than masked numbers). */
export interface PaymentFacts {
  merchantName: string;
  /** `MWK 1,000.00` */
  amount: string;
  reference: string;
  /** The reference the merchant gave the payment, named as its API names it: a checkout's `tx_ref`, a direct charge's `charge_id`. */
  merchantReference: MerchantReference;
  paidAt: string;
  /** `Airtel Money (+265990xxxx00)` or `VISA 424242******4242`. */
  method: string | null;
  /** The checkout's title, e.g. what was bought. */
  title: string | null;
  /** `Jane Banda <jane@example.com>`, for the merchant. */
  customer: string | null;
}

export interface MerchantReference {
  label: string;
  value: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * Reads a successful payment's event body (the webhook payload, fixed when the payment
 * succeeded), so a receipt says exactly what the merchant's webhook says.
 */
export function paymentFacts(
  merchantName: string,
  payload: Record<string, unknown>,
  paidAt: number,
  timeZone: string,
): PaymentFacts {
  const name = [text(payload.first_name), text(payload.last_name)].filter(Boolean).join(' ');
  const email = text(payload.email);
  return {
    merchantName,
    amount: moneyText(String(payload.currency), toMinor(Number(payload.amount))),
    reference: String(payload.reference),
    merchantReference: merchantReferenceOf(payload),
    paidAt: formatHumanDate(paidAt, timeZone),
    method: paymentMethod(record(payload.authorization)),
    title: text(record(payload.customization).title),
    customer: email ? `${name} <${email}>`.trim() : name || null,
  };
}

/**
 * A checkout payment's event names the merchant's order by `tx_ref` (its `charge_id` is the
 * attempt's, ours); a direct charge has no `tx_ref`, and its `charge_id` is the merchant's.
 */
function merchantReferenceOf(payload: Record<string, unknown>): MerchantReference {
  const txRef = text(payload.tx_ref);
  return txRef
    ? { label: 'Transaction reference (tx_ref)', value: txRef }
    : { label: 'Charge (charge_id)', value: String(payload.charge_id) };
}

/** Names the method from the event's masked `authorization`, as pages and logs name it. */
function paymentMethod(authorization: Record<string, unknown>): string | null {
  if (typeof authorization.channel !== 'string') return null;
  return describeAuthorization({
    channel: authorization.channel,
    brand: text(authorization.brand),
    card_number: text(authorization.card_number),
    provider: text(authorization.provider),
    mobile_number: text(authorization.mobile_number),
  });
}

/** What a refund receipt tells: the refund, the payment it gives back, and why. */
export interface RefundFacts {
  merchantName: string;
  /** `MWK 400.00` */
  amount: string;
  /** What the payment was, `MWK 1,000.00`. */
  paymentAmount: string;
  refundId: string;
  reference: string;
  txRef: string | null;
  chargeId: string;
  refundedAt: string;
  method: string | null;
  title: string | null;
  customer: string | null;
  reason: string | null;
}

/** Reads a successful refund's event body (`api.refund`), as `paymentFacts` reads a payment's. */
export function refundFacts(
  merchantName: string,
  payload: Record<string, unknown>,
  refundedAt: number,
  timeZone: string,
): RefundFacts {
  const payment = paymentFacts(merchantName, payload, refundedAt, timeZone);
  const money = (major: unknown) => moneyText(String(payload.currency), toMinor(Number(major)));
  return {
    merchantName,
    amount: payment.amount,
    paymentAmount: money(payload.payment_amount),
    refundId: String(payload.refund_id),
    reference: payment.reference,
    txRef: text(payload.tx_ref),
    chargeId: String(payload.charge_id),
    refundedAt: payment.paidAt,
    method: payment.method,
    title: payment.title,
    customer: payment.customer,
    reason: text(payload.reason),
  };
}

type Row = [label: string, value: string | null];

/** How a receipt looks for a merchant: a logo (https only) and an accent colour (`#rrggbb`), each optional. */
export interface Brand {
  logoUrl: string | null;
  color: string | null;
}

const NO_BRAND: Brand = { logoUrl: null, color: null };

/** The session's own logo when it gave one, else the merchant's (dashboard settings); the merchant's colour. */
export function brandOf(
  merchant: { logo_url: string | null; brand_color: string | null },
  payload: Record<string, unknown>,
): Brand {
  const https = (url: string | null) => (url !== null && isBrandLogoUrl(url) ? url : null);
  const color = merchant.brand_color !== null && isBrandColor(merchant.brand_color) ? merchant.brand_color : null;
  return { logoUrl: https(text(record(payload.customization).logo)) ?? https(merchant.logo_url), color };
}

export function composeReceipt(kind: ReceiptKind, facts: PaymentFacts, brand: Brand = NO_BRAND): ComposedEmail {
  const forCustomer = kind === 'customer_receipt';
  const subject = forCustomer
    ? `Your receipt from ${facts.merchantName}: ${facts.amount}`
    : `Payment received: ${facts.amount} (${facts.merchantReference.value})`;
  const intro = forCustomer
    ? `Thank you for your payment to ${facts.merchantName}. Keep this email as your receipt.`
    : `${facts.merchantName} received a payment.`;
  const rows: Row[] = [
    ['Amount', facts.amount],
    ['For', facts.title],
    forCustomer ? ['Paid to', facts.merchantName] : ['Customer', facts.customer],
    ['Payment method', facts.method],
    ['Date', facts.paidAt],
    ['Reference', facts.reference],
    [facts.merchantReference.label, facts.merchantReference.value],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== null);
  return { subject, text: textBody(intro, shown), html: htmlBody(facts.merchantName, subject, intro, shown, brand) };
}

export type RefundReceiptKind = Extract<ReceiptKind, 'merchant_refund_receipt' | 'customer_refund_receipt'>;

/** The customer is told the money is on its way back, and how; the merchant, which payment it gave back. */
export function composeRefundReceipt(
  kind: RefundReceiptKind,
  facts: RefundFacts,
  brand: Brand = NO_BRAND,
): ComposedEmail {
  const forCustomer = kind === 'customer_refund_receipt';
  const subject = forCustomer
    ? `Your refund from ${facts.merchantName}: ${facts.amount}`
    : `Refund sent: ${facts.amount} (${facts.txRef ?? facts.chargeId})`;
  const intro = forCustomer
    ? `${facts.merchantName} has refunded ${facts.amount} of your payment. The money goes back the way you paid. Keep this email as your receipt.`
    : `${facts.merchantName} refunded ${facts.amount} of a payment.`;
  const rows: Row[] = [
    ['Amount refunded', facts.amount],
    ['Of the payment of', facts.paymentAmount],
    ['For', facts.title],
    forCustomer ? ['Refunded by', facts.merchantName] : ['Customer', facts.customer],
    ['Reason', facts.reason],
    ['Paid with', facts.method],
    ['Date', facts.refundedAt],
    ['Refund', facts.refundId],
    ['Payment reference', facts.reference],
    ['Transaction reference (tx_ref)', facts.txRef],
    // The customer is shown the merchant's reference only: a checkout attempt's charge_id is ours.
    ['Charge (charge_id)', forCustomer && facts.txRef !== null ? null : facts.chargeId],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== null);
  return { subject, text: textBody(intro, shown), html: htmlBody(facts.merchantName, subject, intro, shown, brand) };
}

function textBody(intro: string, rows: Array<[string, string]>): string {
  return [intro, '', ...rows.map(([label, value]) => `${label}: ${value}`), ''].join('\n');
}

/** Built with the `html` tag: merchant names, titles and customer names come from merchants and customers. */
function htmlBody(
  heading: string,
  subject: string,
  intro: string,
  rows: Array<[string, string]>,
  brand: Brand,
): string {
  const cells = rows.map(
    ([label, value]) =>
      html`<tr><th align="left" style="padding:4px 16px 4px 0;color:#555">${label}</th><td style="padding:4px 0">${value}</td></tr>`,
  );
  return joinHtml(
    [
      html`<!doctype html>`,
      html`<html><head><meta charset="utf-8"><title>${subject}</title></head>`,
      html`<body style="font-family:Arial,Helvetica,sans-serif;color:#222">`,
      // The colour is an accent only, a rule above the heading: the text keeps its contrast whatever the colour.
      brand.color ? html`<div style="height:4px;background:${brand.color}"></div>` : '',
      brand.logoUrl ? html`<p><img src="${brand.logoUrl}" alt="${heading}" width="48" height="48"></p>` : '',
      html`<h1 style="font-size:20px">${heading}</h1>`,
      html`<p>${intro}</p>`,
      html`<table style="border-collapse:collapse">`,
      ...cells,
      html`</table>`,
      html`</body></html>`,
      '',
    ],
    '\n',
  ).toString();
}
