import type { CheckoutSession } from '../core/session-repository.ts';
import { toMajor } from '../shared/money.ts';
import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';
import type { PaymentLink } from './payment-link-repository.ts';
import { customerFieldsOf } from './payment-link-service.ts';

/** Where a link is opened and its QR codes drawn, under the gateway's public address. */
export const linkUrls = (publicBaseUrl: string, slug: string) => {
  const url = `${publicBaseUrl}/pay/${slug}`;
  return { url, qr_svg_url: `${url}/qr.svg`, qr_png_url: `${url}/qr.png` };
};

/** A payment link as merchants read it (docs/integrate/api-reference.md#payment-links). */
export function linkView(link: PaymentLink, publicBaseUrl: string) {
  return {
    id: link.id,
    slug: link.slug,
    ...linkUrls(publicBaseUrl, link.slug),
    mode: link.mode,
    active: link.active === 1,
    title: link.title,
    description: link.description,
    amount: link.amount_minor === null ? null : toMajor(link.amount_minor),
    min_amount: link.min_amount_minor === null ? null : toMajor(link.min_amount_minor),
    currency: link.currency,
    reusable: link.reusable === 1,
    max_payments: link.max_payments,
    expires_at: formatNullableTimestamp(link.expires_at),
    customer_fields: customerFieldsOf(link),
    redirect_url: link.redirect_url,
    meta: link.meta === null ? null : (JSON.parse(link.meta) as Record<string, unknown>),
    payments_count: link.payments_count,
    amount_collected: toMajor(link.amount_collected_minor),
    created_at: formatTimestamp(link.created_at),
    updated_at: formatTimestamp(link.updated_at),
  };
}

/** One payment made through a link: its checkout session, as the verification names it. */
export function linkPaymentView(session: CheckoutSession) {
  return {
    tx_ref: session.tx_ref,
    reference: session.reference,
    amount: toMajor(session.amount_minor),
    currency: session.currency,
    status: session.status,
    first_name: session.first_name,
    last_name: session.last_name,
    email: session.email,
    completed_at: formatNullableTimestamp(session.completed_at),
    created_at: formatTimestamp(session.created_at),
  };
}
