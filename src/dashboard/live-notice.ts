import type { LiveRoutes } from '../config.ts';
import { takesAnyLivePayment } from '../core/live-readiness.ts';
import type { Mode } from '../shared/ids.ts';
import { html, type SafeHtml } from '../web/html.ts';

export const LIVE_NOT_SET_UP =
  'Live payments are not available yet: the gateway’s operator has not set up a payment method.';

/**
 * What live mode says while the operator has routed no way to pay: live keys then create nothing a
 * customer could pay (sessions are refused), which a merchant should learn before sharing them.
 */
export function liveNoticeBox(mode: Mode, routes: LiveRoutes): SafeHtml {
  return mode === 'live' && !takesAnyLivePayment(routes)
    ? html`<p class="warning" role="status">${LIVE_NOT_SET_UP}</p>`
    : html``;
}
