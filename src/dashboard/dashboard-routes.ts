import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import QRCode from 'qrcode';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { App } from '../http/app-type.ts';
import { sendError, toApiError } from '../http/error-reply.ts';
import { sendHtml } from '../http/html.ts';
import { findMerchant } from '../merchants/merchant-service.ts';
import { clientAddress } from '../ratelimit/client-address.ts';
import { readCookie } from '../web/cookies.ts';
import { csrfTokenMatches, fromOurOrigin, issueCsrfCookie } from '../web/csrf.ts';
import { addressFailures } from '../users/address-failures.ts';
import { clearedSessionCookie, endSession, SESSION_COOKIE, sessionCookie, sessionOf, type SignedIn } from '../users/sessions.ts';
import { signInWithCode, signInWithPassword, type SignInOutcome } from '../users/sign-in.ts';
import { newTotpSecret, totpUri } from '../users/totp.ts';
import { disableTwoFactor, enableTwoFactor, linkUser, setPasswordWithLink, signOutEverywhere, UserError } from '../users/user-service.ts';
import { DASHBOARD_CSS } from './dashboard-styles.ts';
import * as views from './dashboard-views.ts';

type Form = Record<string, string | undefined>;
type Query = Record<string, string | undefined>;

/** Failed sign-ins one client address may make in a window, whichever accounts they were for. */
const ADDRESS_FAILURES = { limit: 20, windowMs: 15 * 60_000 };
const REFUSED = 'The email or password is wrong, or the account is locked for a while after too many failed tries.';
const WRONG_CODE = 'That code is not right, or was already used. Wait for the next one and try again.';
/** What a base32 secret of ours looks like (160 bits): anything else posted back is not one we showed. */
const SECRET_PATTERN = /^[A-Z2-7]{32}$/;

/**
 * Not part of the API: hidden from its reference. Form posts are read as url-encoded forms; a
 * page that fails answers with a page.
 */
const PAGE = { schema: { hide: true }, errorHandler: answerDashboardError } as const;
const FORM = { ...PAGE, config: { form: true } } as const;

/**
 * The dashboard's sign-in, sessions and account pages under /dashboard. Every form carries the
 * double-submit token (its cookie scoped to /dashboard) and is refused from foreign origins; every
 * page but sign-in and set-password needs a signed-in session, or sends the browser to sign in.
 */
export function registerDashboardRoutes(app: App, { config, db }: { config: Config; db: Kysely<DB> }): void {
  const secure = config.publicBaseUrl.startsWith('https:');
  const failures = addressFailures(ADDRESS_FAILURES.limit, ADDRESS_FAILURES.windowMs);
  const csrf = (request: FastifyRequest, reply: FastifyReply) => issueCsrfCookie(request, reply, '/dashboard', secure);
  const html = (reply: FastifyReply, status: number, page: string) => sendHtml(reply, status, page);
  const current = (request: FastifyRequest) => sessionOf(db, readCookie(request, SESSION_COOKIE), Date.now());
  const toSignIn = (reply: FastifyReply) => reply.redirect('/dashboard/login', 303);

  /** The signed-in session of a page's request, or null once the browser has been sent to sign in. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | null> {
    const found = await current(request);
    if (found && found.session.awaiting_code === 0) return found;
    toSignIn(reply);
    return null;
  }

  /** Whether a form came from our own page; when not, the refusal has been answered. */
  function formIsOurs(request: FastifyRequest<{ Body: Form }>, reply: FastifyReply): boolean {
    if (fromOurOrigin(request, config.publicBaseUrl) && csrfTokenMatches(request, request.body?.csrf)) return true;
    html(reply, 403, views.renderForbiddenPage());
    return false;
  }

  async function viewerOf({ user }: SignedIn): Promise<views.Viewer> {
    const merchant = user.merchant_id === null ? null : await findMerchant(db, user.merchant_id);
    return { email: user.email, role: user.role, merchantName: merchant ? merchant.name : null };
  }

  app.get('/dashboard/assets/dashboard.css', PAGE, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=3600').send(DASHBOARD_CSS),
  );

  app.get<{ Querystring: Query }>('/dashboard/login', PAGE, async (request, reply) => {
    const found = await current(request);
    if (found?.session.awaiting_code === 0) return reply.redirect('/dashboard', 303);
    if (found && request.query.restart === undefined) return html(reply, 200, views.renderCodePage(csrf(request, reply), null));
    if (found) {
      await endSession(db, readCookie(request, SESSION_COOKIE));
      reply.header('set-cookie', clearedSessionCookie(secure));
    }
    const notice = request.query.signed_out !== undefined ? 'You are signed out.' : request.query.password_set !== undefined ? 'Your password is set: sign in with it.' : null;
    return html(reply, 200, views.renderLoginPage(csrf(request, reply), { email: '', error: null, notice }));
  });

  app.post<{ Body: Form }>('/dashboard/login', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const address = clientAddress(request, config.clientAddressHeader);
    if (!failures.allows(address, Date.now())) return html(reply, 429, views.renderTooManyPage());
    const pending = await current(request);
    const { email = '', password = '', code } = request.body;
    // A password form posted from a tab opened earlier starts again rather than counting as a wrong code.
    const codeStep = pending?.session.awaiting_code === 1 && code !== undefined;
    const result: SignInOutcome = codeStep ? await signInWithCode(db, pending, code) : await signInWithPassword(db, email, password);
    if (result.outcome === 'refused') {
      failures.count(address, Date.now());
      if (codeStep) return html(reply, 401, views.renderCodePage(csrf(request, reply), WRONG_CODE));
      return html(reply, 401, views.renderLoginPage(csrf(request, reply), { email, error: REFUSED }));
    }
    reply.header('set-cookie', sessionCookie(result.token, secure));
    return reply.redirect(result.outcome === 'code_needed' ? '/dashboard/login' : '/dashboard', 303);
  });

  app.post<{ Body: Form }>('/dashboard/logout', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    await endSession(db, readCookie(request, SESSION_COOKIE));
    reply.header('set-cookie', clearedSessionCookie(secure));
    return reply.redirect('/dashboard/login?signed_out=1', 303);
  });

  app.post<{ Body: Form }>('/dashboard/logout-everywhere', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const found = await signedIn(request, reply);
    if (!found) return reply;
    await signOutEverywhere(db, found.user);
    reply.header('set-cookie', clearedSessionCookie(secure));
    return reply.redirect('/dashboard/login?signed_out=1', 303);
  });

  app.get('/dashboard', PAGE, async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    return html(reply, 200, views.renderHomePage(await viewerOf(found), csrf(request, reply)));
  });

  app.get<{ Querystring: Query }>('/dashboard/set-password', PAGE, async (request, reply) => {
    const user = await linkUser(db, request.query.token);
    if (!user) return html(reply, 404, views.renderLinkUnusablePage());
    return html(reply, 200, views.renderSetPasswordPage(csrf(request, reply), request.query.token!, user.email, null));
  });

  app.post<{ Body: Form }>('/dashboard/set-password', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const { token = '', password = '', confirm = '' } = request.body;
    const user = await linkUser(db, token);
    if (!user) return html(reply, 404, views.renderLinkUnusablePage());
    const again = (error: string) => html(reply, 422, views.renderSetPasswordPage(csrf(request, reply), token, user.email, error));
    if (password !== confirm) return again('The two passwords differ: type the same password twice.');
    try {
      if (!(await setPasswordWithLink(db, token, password))) return html(reply, 404, views.renderLinkUnusablePage());
    } catch (error) {
      if (error instanceof UserError) return again(error.message);
      throw error;
    }
    return reply.redirect('/dashboard/login?password_set=1', 303);
  });

  app.get<{ Querystring: Query }>('/dashboard/settings/two-factor', PAGE, async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const viewer = await viewerOf(found);
    if (found.user.totp_secret !== null) {
      const notice = request.query.done === 'on' ? 'Two-factor sign-in is on.' : null;
      return html(reply, 200, views.renderTwoFactorOnPage(viewer, csrf(request, reply), { error: null, notice }));
    }
    const secret = newTotpSecret();
    return html(reply, 200, views.renderTwoFactorSetupPage(viewer, csrf(request, reply), { secret, qrDataUrl: await qrDataUrl(secret, found.user.email), error: null }));
  });

  app.post<{ Body: Form }>('/dashboard/settings/two-factor', FORM, async (request, reply) => {
    if (!formIsOurs(request, reply)) return reply;
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const { user } = found;
    const { action, code = '', secret = '' } = request.body;
    if (action === 'enable' && user.totp_secret === null && SECRET_PATTERN.test(secret)) {
      if (await enableTwoFactor(db, user, secret, code)) return reply.redirect('/dashboard/settings/two-factor?done=on', 303);
      return html(reply, 422, views.renderTwoFactorSetupPage(await viewerOf(found), csrf(request, reply), { secret, qrDataUrl: await qrDataUrl(secret, user.email), error: WRONG_CODE }));
    }
    if (action === 'disable' && user.totp_secret !== null) {
      if (await disableTwoFactor(db, user, code)) return reply.redirect('/dashboard/settings/two-factor', 303);
      return html(reply, 422, views.renderTwoFactorOnPage(await viewerOf(found), csrf(request, reply), { error: WRONG_CODE, notice: null }));
    }
    // A stale form (two-factor already turned on or off in another tab): the page as it is now.
    return reply.redirect('/dashboard/settings/two-factor', 303);
  });
}

/** The otpauth URI as an SVG QR code in a data URL: drawn here, nothing fetched from elsewhere. */
async function qrDataUrl(secret: string, email: string): Promise<string> {
  const svg = await QRCode.toString(totpUri(secret, email), { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** A page that fails is answered with a page; client errors (a body too large) keep the API's answer. */
function answerDashboardError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const failure = toApiError(error, request.log);
  if (failure.status < 500) return sendError(reply, failure);
  if (failure.code === 'unavailable') reply.header('retry-after', '1');
  return sendHtml(reply, failure.status, views.renderUnavailablePage());
}
