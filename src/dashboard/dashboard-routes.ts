import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { PasswordLinkPurpose } from '../db/schema.ts';
import type { App } from '../http/app-type.ts';
import { clientAddress } from '../ratelimit/client-address.ts';
import { readCookie } from '../web/cookies.ts';
import { issueCsrfCookie } from '../web/csrf.ts';
import { addressFailures } from '../users/address-failures.ts';
import { clearedSessionCookie, endSession, SESSION_COOKIE, sessionCookie, sessionOf } from '../users/sessions.ts';
import { signInWithCode, signInWithPassword, signInWithRecoveryCode, type SignInOutcome } from '../users/sign-in.ts';
import { newTotpSecret, totpUri } from '../users/totp.ts';
import { acceptInvitation, invitationOf } from '../users/invitations.ts';
import { recoveryCodesLeft, regenerateRecoveryCodes } from '../users/recovery-codes.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  passwordLinkOf,
  setPasswordWithLink,
  signOutEverywhere,
  UserError,
} from '../users/user-service.ts';
import { registerForgotPasswordPages } from './account/forgot-password-routes.ts';
import { renderRecoveryCodesPage } from './account/recovery-views.ts';
import { DASHBOARD_CSS } from './dashboard-styles.ts';
import * as views from './dashboard-views.ts';
import {
  dashboardCookie,
  dashboardPath,
  FORM,
  MODE_COOKIE,
  PAGE,
  pageGuard,
  type DashboardDeps,
  type Form,
  type Query,
} from './page-context.ts';
import { registerOverviewPages } from './overview/overview-routes.ts';
import { registerPaymentPages } from './payments/payment-routes.ts';
import { registerPaymentDetailPages } from './payments/payment-detail-routes.ts';
import { registerCustomerPages } from './customers/customer-routes.ts';
import { registerDeliveryPages } from './deliveries/delivery-routes.ts';
import { registerPayoutPages } from './payouts/payout-routes.ts';
import { registerPaymentLinkPages } from './payment-links/link-routes.ts';
import { registerBalancePages } from './balance/balance-routes.ts';
import { registerDeveloperPages } from './developers/developer-routes.ts';
import { registerSettingsPages } from './settings/settings-routes.ts';
import { registerAuditPages } from './audit/audit-routes.ts';
import { registerOperatorPages } from './operator/operator-routes.ts';
import { registerAccountPages, signInRecorder } from './account/account-routes.ts';

/**
 * The dashboard's script, beside this module (`bin/lipira.js` copies it beside the bundle), read
 * once at start: small, and it never changes while running.
 */
const DASHBOARD_SCRIPT = readFileSync(new URL('./dashboard.js', import.meta.url), 'utf8');

/** Failed sign-ins one client address may make in a window, whichever accounts they were for. */
const ADDRESS_FAILURES = { limit: 20, windowMs: 15 * 60_000 };
const REFUSED = 'The email or password is wrong, or the account is locked for a while after too many failed tries.';
const WRONG_CODE = 'That code is not right, or was already used. Wait for the next one and try again.';
const WRONG_RECOVERY_CODE = 'That recovery code is not right, or was already used. Each code works once.';
/** What a base32 secret of ours looks like (160 bits): anything else posted back is not one we showed. */
const SECRET_PATTERN = /^[A-Z2-7]{32}$/;

/**
 * The dashboard's sign-in, sessions and account pages under /dashboard. Every form carries the
 * double-submit token (its cookie scoped to /dashboard) and is refused from foreign origins; every
 * page but sign-in, set-password and forgot-password needs a signed-in session, or sends the
 * browser to sign in.
 */
export function registerDashboardRoutes(app: App, deps: DashboardDeps): void {
  const { config, clock } = deps;
  const db = deps.database.db;
  const guard = pageGuard(deps);
  const { secure } = guard;
  const failures = addressFailures(ADDRESS_FAILURES.limit, ADDRESS_FAILURES.windowMs);
  const csrf = (request: FastifyRequest, reply: FastifyReply) => issueCsrfCookie(request, reply, '/dashboard', secure);
  const current = (request: FastifyRequest) => sessionOf(db, readCookie(request, SESSION_COOKIE), clock.now());
  const { html, formIsOurs } = guard;
  const afterSignIn = signInRecorder(deps, secure);

  for (const [file, type, body] of [
    ['dashboard.css', 'text/css; charset=utf-8', DASHBOARD_CSS],
    ['dashboard.js', 'text/javascript; charset=utf-8', DASHBOARD_SCRIPT],
  ] as const)
    app.get(`/dashboard/assets/${file}`, PAGE, async (_request, reply) =>
      reply
        .type(type)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=3600')
        .send(body),
    );

  app.get<{ Querystring: Query }>('/dashboard/login', PAGE, async (request, reply) => {
    const found = await current(request);
    if (found?.session.awaiting_code === 0) return reply.redirect('/dashboard', 303);
    if (found && request.query.restart === undefined)
      return html(reply, 200, views.renderCodePage(csrf(request, reply), null));
    if (found) {
      await endSession(db, readCookie(request, SESSION_COOKIE));
      reply.header('set-cookie', clearedSessionCookie(secure));
    }
    const notice =
      request.query.signed_out !== undefined
        ? 'You are signed out.'
        : request.query.password_set !== undefined
          ? 'Your password is set: sign in with it.'
          : null;
    return html(reply, 200, views.renderLoginPage(csrf(request, reply), { email: '', error: null, notice }));
  });

  app.post<{ Body: Form }>('/dashboard/login', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const attempt = failures.begin(clientAddress(request, config.clientAddressHeader), Date.now());
    if (!attempt) return html(reply, 429, views.renderTooManyPage());
    try {
      const pending = await current(request);
      const { email = '', password = '', code, recovery_code: recoveryCode } = request.body;
      // A password form posted from a tab opened earlier starts again rather than counting as a wrong code.
      const codeStep = pending?.session.awaiting_code === 1 && (code !== undefined || recoveryCode !== undefined);
      const result: SignInOutcome = !codeStep
        ? await signInWithPassword(db, email, password, clock.now())
        : recoveryCode !== undefined
          ? await signInWithRecoveryCode(db, config, pending, recoveryCode, clock.now())
          : await signInWithCode(db, pending, code!, clock.now());
      if (result.outcome === 'refused') {
        attempt.failed(Date.now());
        if (codeStep)
          return html(
            reply,
            401,
            views.renderCodePage(csrf(request, reply), recoveryCode !== undefined ? WRONG_RECOVERY_CODE : WRONG_CODE),
          );
        return html(reply, 401, views.renderLoginPage(csrf(request, reply), { email, error: REFUSED }));
      }
      reply.header('set-cookie', sessionCookie(result.token, secure));
      if (result.outcome === 'code_needed') return reply.redirect('/dashboard/login', 303);
      return reply.redirect(await afterSignIn(request, reply, result.user), 303);
    } finally {
      attempt.end(Date.now());
    }
  });

  app.post<{ Body: Form }>('/dashboard/logout', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    await endSession(db, readCookie(request, SESSION_COOKIE));
    reply.header('set-cookie', clearedSessionCookie(secure));
    return reply.redirect('/dashboard/login?signed_out=1', 303);
  });

  app.post<{ Body: Form }>('/dashboard/logout-everywhere', FORM, async (request, reply) => {
    const found = await guard.form(request, reply, 'read');
    if (!found) return reply;
    await signOutEverywhere(db, found.user, clock.now());
    reply.header('set-cookie', clearedSessionCookie(secure));
    return reply.redirect('/dashboard/login?signed_out=1', 303);
  });

  app.post<{ Body: Form }>('/dashboard/mode', FORM, async (request, reply) => {
    const found = await guard.form(request, reply, 'read');
    if (!found) return reply;
    reply.header('set-cookie', dashboardCookie(MODE_COOKIE, request.body.mode === 'live' ? 'live' : 'test', secure));
    return reply.redirect(dashboardPath(request.body.back), 303);
  });

  /** The address a password link, or an invitation's, is for while it works, and what it was sent for; null otherwise. */
  async function linkFor(token: unknown): Promise<{ email: string; purpose: PasswordLinkPurpose } | null> {
    const link = await passwordLinkOf(db, token, clock.now());
    if (link) return { email: link.user.email, purpose: link.purpose };
    const invitation = await invitationOf(db, token, clock.now());
    return invitation && { email: invitation.email, purpose: 'set' };
  }

  app.get<{ Querystring: Query }>('/dashboard/set-password', PAGE, async (request, reply) => {
    const link = await linkFor(request.query.token);
    if (link === null) return html(reply, 404, views.renderLinkUnusablePage());
    const page = { ...link, token: request.query.token! };
    return html(reply, 200, views.renderSetPasswordPage(csrf(request, reply), page, null));
  });

  app.post<{ Body: Form }>('/dashboard/set-password', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const { token = '', password = '', confirm = '' } = request.body;
    const link = await linkFor(token);
    if (link === null) return html(reply, 404, views.renderLinkUnusablePage());
    const again = (error: string) =>
      html(reply, 422, views.renderSetPasswordPage(csrf(request, reply), { ...link, token }, error));
    if (password !== confirm) return again('The two passwords differ: type the same password twice.');
    try {
      const set =
        (await setPasswordWithLink(db, token, password, clock.now())) ??
        (await acceptInvitation(db, token, password, clock.now()));
      if (!set) return html(reply, 404, views.renderLinkUnusablePage());
    } catch (error) {
      if (error instanceof UserError) return again(error.message);
      throw error;
    }
    return reply.redirect('/dashboard/login?password_set=1', 303);
  });

  app.get<{ Querystring: Query }>('/dashboard/settings/two-factor', PAGE, async (request, reply) => {
    const found = await guard.page(request, reply, 'read');
    if (!found) return reply;
    const { viewer } = found;
    if (found.user.totp_secret !== null) {
      const codesLeft = await recoveryCodesLeft(db, found.user.id);
      return html(reply, 200, views.renderTwoFactorOnPage(viewer, { error: null, codesLeft }));
    }
    const secret = newTotpSecret();
    return html(
      reply,
      200,
      views.renderTwoFactorSetupPage(viewer, {
        secret,
        qrDataUrl: await qrDataUrl(secret, found.user.email),
        error: null,
      }),
    );
  });

  app.post<{ Body: Form }>('/dashboard/settings/two-factor', FORM, async (request, reply) => {
    const found = await guard.form(request, reply, 'read');
    if (!found) return reply;
    const { user, viewer } = found;
    const { action, code = '', secret = '' } = request.body;
    const showCodes = (codes: string[], notice: string) =>
      html(reply, 200, renderRecoveryCodesPage(viewer, { codes, notice }));
    if (action === 'enable' && user.totp_secret === null && SECRET_PATTERN.test(secret)) {
      const codes = await enableTwoFactor(db, user, secret, code, clock.now());
      if (codes) return showCodes(codes, 'Two-factor sign-in is on.');
      return html(
        reply,
        422,
        views.renderTwoFactorSetupPage(viewer, {
          secret,
          qrDataUrl: await qrDataUrl(secret, user.email),
          error: WRONG_CODE,
        }),
      );
    }
    const wrongCode = async () =>
      html(
        reply,
        422,
        views.renderTwoFactorOnPage(viewer, { error: WRONG_CODE, codesLeft: await recoveryCodesLeft(db, user.id) }),
      );
    if (action === 'regenerate' && user.totp_secret !== null) {
      const codes = await regenerateRecoveryCodes(db, user, code, clock.now());
      if (codes) return showCodes(codes, 'New recovery codes are made: the earlier ones no longer work.');
      return wrongCode();
    }
    if (action === 'disable' && user.totp_secret !== null) {
      if (await disableTwoFactor(db, user, code, clock.now()))
        return reply.redirect('/dashboard/settings/two-factor', 303);
      return wrongCode();
    }
    // A stale form (two-factor already turned on or off in another tab): the page as it is now.
    return reply.redirect('/dashboard/settings/two-factor', 303);
  });

  registerForgotPasswordPages(app, deps, guard);
  registerOverviewPages(app, deps, guard);
  registerPaymentPages(app, deps, guard);
  registerPaymentDetailPages(app, deps, guard);
  registerCustomerPages(app, deps, guard);
  registerPaymentLinkPages(app, deps, guard);
  registerDeliveryPages(app, deps, guard);
  registerPayoutPages(app, deps, guard);
  registerBalancePages(app, deps, guard);
  registerDeveloperPages(app, deps, guard);
  registerSettingsPages(app, deps, guard);
  registerAuditPages(app, deps, guard);
  registerOperatorPages(app, deps, guard);
  registerAccountPages(app, deps, guard);
}

/** The otpauth URI as an SVG QR code in a data URL: drawn here, nothing fetched from elsewhere. */
async function qrDataUrl(secret: string, email: string): Promise<string> {
  const svg = await QRCode.toString(totpUri(secret, email), { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
