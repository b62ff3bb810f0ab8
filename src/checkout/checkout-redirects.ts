import { withQuery } from '../shared/urls.ts';
import type { CheckoutSession } from '../core/session-repository.ts';

/** Where the browser goes after success: callback_url + tx_ref, transaction_id (our reference), status. */
export function successRedirect(session: CheckoutSession): string | null {
  return (
    session.callback_url &&
    withQuery(session.callback_url, { tx_ref: session.tx_ref, transaction_id: session.reference, status: 'success' })
  );
}

/** Where the browser goes after cancel, too many failures or expiry: return_url + tx_ref, status=failed. */
export function failureRedirect(session: CheckoutSession): string | null {
  return session.return_url && withQuery(session.return_url, { tx_ref: session.tx_ref, status: 'failed' });
}

/** The merchant origins a session may send the browser to. */
export function merchantOrigins(session: CheckoutSession): string[] {
  return [session.callback_url, session.return_url].flatMap((url) => (url ? [originOf(url)] : []));
}

/** Origins of URLs seen lately: merchants send the same few URLs with every session, and parsing one cost microseconds on every page view. */
const origins = new Map<string, string>();
const MAX_ORIGINS = 1000;

function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (origins.size >= MAX_ORIGINS) origins.delete(origins.keys().next().value!);
    origins.set(url, origin);
  }
  return origin;
}
