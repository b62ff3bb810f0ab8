import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.ts';
import { findMerchant } from '../../merchants/merchant-service.ts';
import { clientAddress } from '../../ratelimit/client-address.ts';
import {
  BROWSER_COOKIE,
  browserCookie,
  fromThisBrowser,
  recordSignIn,
  signInHistory,
} from '../../users/sign-in-history.ts';
import type { User } from '../../users/user-repository.ts';
import { readCookie } from '../../web/cookies.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';
import { renderAccountPage } from './account-views.ts';

/**
 * What follows a completed sign-in: it is recorded with the client's address and browser (an
 * email when the browser is new to the user), the browser keeps its cookie, and the page to go
 * to is answered: the dashboard, or the two-factor setup when someone reset it meanwhile.
 */
export function signInRecorder({ config, database, clock }: DashboardDeps, secure: boolean) {
  return async (request: FastifyRequest, reply: FastifyReply, user: User): Promise<string> => {
    const recorded = await recordSignIn(
      database.db,
      config,
      user,
      {
        address: clientAddress(request, config.clientAddressHeader),
        userAgent: request.headers['user-agent'],
        browserToken: readCookie(request, BROWSER_COOKIE),
      },
      clock.now(),
    );
    reply.header('set-cookie', browserCookie(recorded.browserToken, secure));
    return recorded.twoFactorDue ? '/dashboard/settings/two-factor' : '/dashboard';
  };
}

/** `/dashboard/account`: the signed-in user's own account, whatever their role. */
export function registerAccountPages(app: App, { config, database }: DashboardDeps, guard: PageGuard): void {
  const db = database.db;
  app.get('/dashboard/account', PAGE, async (request, reply) => {
    const page = await guard.page(request, reply, 'read');
    if (!page) return reply;
    const { user } = page;
    const [team, signIns] = await Promise.all([
      user.merchant_id === null ? null : findMerchant(db, user.merchant_id),
      signInHistory(db, user.id),
    ]);
    const browserToken = readCookie(request, BROWSER_COOKIE);
    return guard.html(
      reply,
      200,
      renderAccountPage({
        viewer: page.viewer,
        teamName: team?.name ?? null,
        twoFactor: user.totp_secret !== null,
        signIns,
        thisBrowser: (signIn) => fromThisBrowser(signIn, browserToken),
        timeZone: config.timeZone,
      }),
    );
  });
}
