import { escapeHtml } from '../shared/html.ts';
import { formatMoneyText } from '../shared/money.ts';
import type { CheckoutSession } from './checkout-repository.ts';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

/** Stands in for the hosted payment page until the checkout flow exists. */
export function renderPlaceholderPage(session: CheckoutSession): string {
  const title = session.title ?? 'Payment';
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(session.currency)} ${formatMoneyText(session.amount_minor)}</p><p>The hosted payment page is not available yet.</p>`,
  );
}

export function renderUnknownSessionPage(): string {
  return page('Payment link not found', '<h1>Payment link not found</h1><p>Check the link you were given, or ask the merchant for a new one.</p>');
}
