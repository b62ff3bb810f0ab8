import type { Static, TSchema } from '@sinclair/typebox';
import { authorizationOf, refundedOf } from '../core/charge-views.ts';
import { formatMoneyText, toMajor } from '../shared/money.ts';
import { formatTimestamp } from '../shared/time.ts';
import type { CheckoutSession } from '../core/session-repository.ts';
import type { VerifiedSession } from './checkout-service.ts';
import type { CurrentCreateResponse, CurrentVerifyResponse, LegacyVerifyResponse } from './checkout-schemas.ts';

type Data<T extends TSchema> = Static<T> extends { data: infer D } ? D : never;

export function checkoutUrl(publicBaseUrl: string, session: CheckoutSession): string {
  return `${publicBaseUrl}/checkout/${session.id}`;
}

export function createdView(session: CheckoutSession, url: string): Data<typeof CurrentCreateResponse> {
  return {
    event: 'checkout.session:created',
    checkout_url: url,
    data: {
      tx_ref: session.tx_ref,
      currency: session.currency,
      amount: toMajor(session.amount_minor),
      mode: session.mode,
      status: session.status,
    },
  };
}

function customization(session: CheckoutSession) {
  return { title: session.title, description: session.description, logo: session.logo };
}

function meta(session: CheckoutSession): Record<string, unknown> | null {
  return session.meta === null ? null : (JSON.parse(session.meta) as Record<string, unknown>);
}

export function currentVerifyView(verified: VerifiedSession): Data<typeof CurrentVerifyResponse> {
  const { session, logs } = verified;
  const { refunded_amount, refund_status } = refundedOf(verified.payment);
  return {
    event_type: 'checkout.payment',
    tx_ref: session.tx_ref,
    mode: session.mode,
    type: 'API Payment (Checkout)',
    status: session.status,
    number_of_attempts: session.attempts,
    reference: session.reference,
    currency: session.currency,
    amount: toMajor(session.amount_minor),
    charges: toMajor(session.fee_minor),
    refunded_amount,
    refund_status,
    customization: customization(session),
    meta: meta(session),
    authorization: verified.payment ? authorizationOf(verified.payment) : null,
    customer: { email: session.email, first_name: session.first_name, last_name: session.last_name },
    logs: logs.map((log) => ({ type: log.type, message: log.message, created_at: formatTimestamp(log.created_at) })),
    created_at: formatTimestamp(session.created_at),
    updated_at: formatTimestamp(session.updated_at),
  };
}

export function legacyVerifyView(session: CheckoutSession): Data<typeof LegacyVerifyResponse> {
  return {
    first_name: session.first_name,
    last_name: session.last_name,
    email: session.email,
    currency: session.currency,
    amount: formatMoneyText(session.amount_minor),
    charge: formatMoneyText(session.fee_minor),
    mode: session.mode,
    type: 'API',
    status: session.status,
    reference: session.reference,
    tx_ref: session.tx_ref,
    customization: customization(session),
    meta: meta(session),
    created_at: formatTimestamp(session.created_at),
    updated_at: formatTimestamp(session.updated_at),
  };
}
