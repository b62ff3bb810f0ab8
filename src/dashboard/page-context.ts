import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { sendHtml } from '../http/html.ts';
import { findMerchant, type Principal } from '../merchants/merchant-service.ts';
import type { Form } from '../http/json-body.ts';
import type { Merchant } from '../merchants/merchant-repository.ts';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { Lifecycle } from '../health/health-routes.ts';
import type { Clock } from '../shared/clock.ts';
import type { Mode } from '../shared/ids.ts';
import { isHttps } from '../shared/urls.ts';
import { readCookie } from '../web/cookies.ts';
import { csrfTokenMatches, fromOurOrigin, issueCsrfCookie } from '../web/csrf.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { pageErrorHandler } from '../web/page-errors.ts';
import { SESSION_COOKIE, sessionOf, type SignedIn } from '../users/sessions.ts';
import { may, type Permission } from './access.ts';
import { shell, type Viewer } from './layout.ts';

export interface DashboardDeps {
  config: Config;
  database: Database;
  payments: PaymentDeps;
  /** This process's workers, for the operator's health section. */
  lifecycle: Lifecycle;
  /** Business time: sessions, links and invitations expire by it. */
  clock: Clock;
}

export type { Form };
export type Query = Record<string, string | undefined>;

/** The test/live choice, kept in the browser: a preference of how to look, not a change. */
export const MODE_COOKIE = 'lipira_mode';
/** The merchant an operator acts for; honoured only for operators, who may act for any. */
export const ACTING_COOKIE = 'lipira_acting';

/** Everything a dashboard page knows about its request once the guard let it through. */
export interface DashboardPage extends SignedIn {
  viewer: Viewer;
  /** The merchant whose data the page shows; null only on the operator's own pages. */
  merchant: Merchant | null;
  mode: Mode;
  csrf: string;
  may(permission: Permission): boolean;
}

/** A merchant page's context: its merchant is known. */
export type MerchantPage = DashboardPage & { merchant: Merchant };

export interface PageGuard {
  /** A merchant page (GET) needing `need`; null once the browser was answered (sent to sign in, refused, sent to pick a merchant). */
  merchantPage(request: FastifyRequest, reply: FastifyReply, need: Permission): Promise<MerchantPage | null>;
  /** A merchant form (POST): as merchantPage, and only when the form came from our own page. */
  merchantForm(
    request: FastifyRequest<{ Body: Form }>,
    reply: FastifyReply,
    need: Permission,
  ): Promise<MerchantPage | null>;
  /** A page that is not any one merchant's (the operator's, the account's). */
  page(request: FastifyRequest, reply: FastifyReply, need: Permission): Promise<DashboardPage | null>;
  form(request: FastifyRequest<{ Body: Form }>, reply: FastifyReply, need: Permission): Promise<DashboardPage | null>;
  /** Whether a form came from our own page; when not, the refusal has been answered. */
  formIsOurs(request: FastifyRequest<{ Body: Form }>, reply: FastifyReply): boolean;
  /** Sends a page with the dashboard's security headers. */
  html(reply: FastifyReply, status: number, page: SafeHtml): FastifyReply;
  /** Whether the dashboard is served over https (cookies then carry Secure). */
  secure: boolean;
}

/**
 * Not part of the API: hidden from its reference. Form posts are read as url-encoded forms; a
 * page that fails answers with a page.
 */
export const PAGE = { schema: { hide: true }, errorHandler: pageErrorHandler(renderUnavailablePage) } as const;
export const FORM = { ...PAGE, config: { form: true } } as const;

/**
 * The one gate every dashboard page goes through: signed in (both factors), allowed by role,
 * for a merchant the user belongs to (or, for an operator, the one they act for), and, for a
 * form, posted from our own page with the double-submit token.
 */
export function pageGuard({ config, database, clock }: DashboardDeps): PageGuard {
  const secure = isHttps(config.publicBaseUrl);
  const db = database.db;

  function formIsOurs(request: FastifyRequest<{ Body: Form }>, reply: FastifyReply): boolean {
    if (fromOurOrigin(request, config.publicBaseUrl) && csrfTokenMatches(request, request.body?.csrf)) return true;
    sendHtml(reply, 403, renderFormExpiredPage());
    return false;
  }

  async function open(
    request: FastifyRequest,
    reply: FastifyReply,
    need: Permission,
    wantsMerchant: boolean,
  ): Promise<DashboardPage | null> {
    const found = await sessionOf(db, readCookie(request, SESSION_COOKIE), clock.now());
    if (!found || found.session.awaiting_code !== 0) {
      reply.redirect('/dashboard/login', 303);
      return null;
    }
    const { user } = found;
    const merchantId = user.role === 'operator' ? readCookie(request, ACTING_COOKIE) : user.merchant_id;
    const merchant = merchantId ? ((await findMerchant(db, merchantId)) ?? null) : null;
    const mode: Mode = readCookie(request, MODE_COOKIE) === 'live' ? 'live' : 'test';
    const csrf = issueCsrfCookie(request, reply, '/dashboard', secure);
    const path = request.url.split('?')[0]!;
    const viewer: Viewer = {
      email: user.email,
      role: user.role,
      merchantName: merchant?.name ?? null,
      mode,
      csrf,
      path,
    };
    const page: DashboardPage = {
      ...found,
      viewer,
      merchant,
      mode,
      csrf,
      may: (permission) => may(user.role, permission),
    };
    if (!page.may(need)) {
      sendHtml(reply, 403, renderNotAllowedPage(viewer));
      return null;
    }
    if (wantsMerchant && merchant === null) {
      reply.redirect(user.role === 'operator' ? '/dashboard/operator' : '/dashboard/login', 303);
      return null;
    }
    return page;
  }

  return {
    secure,
    html: (reply, status, page) => sendHtml(reply, status, page),
    formIsOurs,
    merchantPage: (request, reply, need) => open(request, reply, need, true) as Promise<MerchantPage | null>,
    merchantForm: async (request, reply, need) =>
      formIsOurs(request, reply) ? ((await open(request, reply, need, true)) as MerchantPage | null) : null,
    page: (request, reply, need) => open(request, reply, need, false),
    form: async (request, reply, need) => (formIsOurs(request, reply) ? open(request, reply, need, false) : null),
  };
}

/**
 * The merchant and mode a merchant page acts for (an operator acting for a merchant included), as
 * the API's services take them: the page's `Principal`, not the signed-in user.
 */
export function merchantModeOf(page: MerchantPage): Principal {
  return { merchantId: page.merchant.id, mode: page.mode };
}

/** A cookie the dashboard keeps for the browser: sent only to /dashboard, never readable by scripts. */
export function dashboardCookie(name: string, value: string, secure: boolean): string {
  return `${name}=${value}; Path=/dashboard; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Where a form may send the browser back to: a dashboard path of ours, nothing else. */
export function dashboardPath(back: string | undefined, fallback = '/dashboard'): string {
  return back !== undefined && /^\/dashboard(\/[A-Za-z0-9_\-/]*)?$/.test(back) ? back : fallback;
}

export function renderFormExpiredPage(): SafeHtml {
  return shell(
    'Form expired',
    html`<h1>This form has expired</h1>
<p>For your safety the form could not be accepted. Go back, reload the page and try again.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}

export function renderNotAllowedPage(viewer: Viewer): SafeHtml {
  return shell(
    'Not allowed',
    html`<h1>Your role cannot do this</h1>
<p>Ask an owner of the account if you need it.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
    { viewer },
  );
}

export function renderNotFoundPage(viewer: Viewer, what: string): SafeHtml {
  return shell(
    'Not found',
    html`<h1>No such ${what}</h1>
<p>It does not exist, or it is not this account's, or it is in the other mode (test or live).</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
    { viewer },
  );
}

export function renderUnavailablePage(): SafeHtml {
  return shell(
    'Unavailable',
    html`<h1>The dashboard is unavailable for a moment</h1>
<p>Try again in a few seconds.</p>`,
  );
}
