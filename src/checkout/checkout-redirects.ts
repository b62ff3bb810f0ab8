import type { CheckoutSession } from './checkout-repository.ts';

/** `url` with `params` set on it, keeping whatever query it already had. */
function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}

/** Where the browser goes after success: callback_url + tx_ref, transaction_id (our reference), status. */
export function successRedirect(session: CheckoutSession): string | null {
  return session.callback_url && withQuery(session.callback_url, { tx_ref: session.tx_ref, transaction_id: session.reference, status: 'success' });
}

/** Where the browser goes after cancel, too many failures or expiry: return_url + tx_ref, status=failed. */
export function failureRedirect(session: CheckoutSession): string | null {
  return session.return_url && withQuery(session.return_url, { tx_ref: session.tx_ref, status: 'failed' });
}

/** The merchant origins a session may send the browser to. */
export function merchantOrigins(session: CheckoutSession): string[] {
  return [session.callback_url, session.return_url].flatMap((url) => (url ? [new URL(url).origin] : []));
}
