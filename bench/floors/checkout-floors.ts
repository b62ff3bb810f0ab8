import { BROWSER_SCRIPTS } from '../../src/checkout/page/browser-views.ts';
import { sendScript } from '../../src/checkout/browser-routes.ts';
import { sendPaymentPage } from '../../src/checkout/checkout-page-routes.ts';
import { findPageSession, findSessionByTxRef, findSessionToVerify } from '../../src/core/session-repository.ts';
import { CurrentVerifyResponse, LegacyVerifyResponse } from '../../src/checkout/checkout-schemas.ts';
import { currentVerifyView, legacyVerifyView } from '../../src/checkout/checkout-views.ts';
import { success } from '../../src/http/envelope.ts';
import type { Floor } from './floor.ts';

/**
 * Verification, the hosted page and the popup's script, as src/checkout's routes answer them.
 * The bench's sessions are pending and not yet expired: the gateway's expiry check on reading
 * one (`expireIfDue`) finds nothing to do, so the floors leave it out.
 */
export function registerCheckoutFloors({ app, db, owner, config }: Floor): void {
  app.get<{ Params: { tx_ref: string } }>(
    '/verify-payment/:tx_ref',
    { schema: { response: { 200: CurrentVerifyResponse } } },
    async (request, reply) => {
      const found = await findSessionToVerify(db, owner, request.params.tx_ref);
      if (!found) return reply.code(404).send();
      const { session, payment } = found;
      return success(
        'Payment details retrieved successfully.',
        currentVerifyView({ session, logs: session.logs, payment }),
      );
    },
  );

  app.get<{ Params: { tx_ref: string } }>(
    '/api/verify-payment/:tx_ref',
    { schema: { response: { 200: LegacyVerifyResponse } } },
    async (request, reply) => {
      const session = await findSessionByTxRef(db, owner, request.params.tx_ref);
      if (!session) return reply.code(404).send();
      return success('Payment details', legacyVerifyView(session));
    },
  );

  const secureCookies = config.publicBaseUrl.startsWith('https:');
  app.get<{ Params: { id: string } }>('/checkout/:id', async (request, reply) => {
    const session = await findPageSession(db, request.params.id);
    if (!session) return reply.code(404).send();
    return sendPaymentPage(request, reply, session, secureCookies, 200, {});
  });

  app.get('/js/popup.js', async (_request, reply) => sendScript(reply, BROWSER_SCRIPTS.popup));
}
