import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentDeps } from '../core/payment-deps.ts';
import { answerPageError, pageSchema, summaryOf as summaryOfSession } from '../checkout/checkout-page-routes.ts';
import { csrfTokenMatches, fromOurOrigin, issueCsrfCookie } from '../web/csrf.ts';
import { cardName } from '../core/customer-names.ts';
import type { SessionSummary } from '../checkout/page/page-model.ts';
import type { Config } from '../config.ts';
import type { App } from '../http/app-type.ts';
import { sendHtml } from '../http/html.ts';
import type { Form } from '../http/json-body.ts';
import type { SafeHtml } from '../web/html.ts';
import { isHttps, withQuery } from '../shared/urls.ts';
import {
  codeTriesLeft,
  findCardAuthentication,
  returnFromAcquirer,
  submitCardCode,
  type CardAuthenticationState,
} from './card-charges.ts';
import { TEST_OTP } from '../connectors/sandbox/sandbox-provider.ts';
import * as views from './three-ds-page-views.ts';

const PATH = '/3ds/auth';
/** Where a live acquirer's own 3-D Secure page sends the customer back to. */
const RETURN_PATH = '/3ds/return';
/** A reference we could have issued (a UUID): anything else is unknown without asking the database. */
const REFERENCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Query = { reference?: string };

/** The absolute link a merchant sends the customer to (`3ds_auth_link`). */
export function threeDsLink(config: Config, reference: string): string {
  return `${config.publicBaseUrl}${PATH}?reference=${encodeURIComponent(reference)}`;
}

/** The absolute link a live acquirer sends the customer back to once they are done on its page. */
export function threeDsReturnLink(config: Config, reference: string): string {
  return `${config.publicBaseUrl}${RETURN_PATH}?reference=${encodeURIComponent(reference)}`;
}

/** Where the browser goes once the charge has ended: the merchant's `redirect_url`, its query kept, with `charge_id` and `status`. */
function merchantRedirect(state: CardAuthenticationState): string {
  return withQuery(state.authentication.redirect_url, {
    charge_id: state.charge.charge_id,
    status: state.charge.status === 'success' ? 'success' : 'failed',
  });
}

/**
 * The 3-D Secure page of direct card charges (docs/integrate/api-reference.md#3-d-secure): asks for the one-time code (or,
 * for a live card, sends the browser on to its acquirer's own page, which sends it back to the
 * return route), then sends the browser back to the merchant. Its form carries the checkout page's double-submit token
 * (its cookie scoped to `/3ds`) and is refused from foreign origins; the page has the checkout's
 * CSP, its `form-action` naming the merchant's origin, to which the form's answer redirects.
 */
export function registerThreeDsPageRoutes(
  app: App,
  { config, payments }: { config: Config; payments: PaymentDeps },
): void {
  const secureCookies = isHttps(config.publicBaseUrl);
  const selfUrl = (reference: string) => `${PATH}?reference=${encodeURIComponent(reference)}`;
  const html = (reply: FastifyReply, status: number, body: SafeHtml, state: CardAuthenticationState | null = null) =>
    sendHtml(reply, status, body, state ? [new URL(state.authentication.redirect_url).origin] : []);

  /** A direct charge has no title, description or branding of its own. */
  const summaryOf = ({ charge, merchant }: CardAuthenticationState): SessionSummary =>
    summaryOfSession({
      mode: charge.mode,
      merchant_name: merchant.name,
      merchant_email: merchant.email,
      merchant_logo_url: null,
      merchant_brand_color: null,
      currency: charge.currency,
      amount_minor: charge.amount_minor,
      title: null,
      description: null,
      logo: null,
      first_name: charge.first_name ?? '',
      last_name: charge.last_name,
      reference: charge.ref_id,
      tx_ref: charge.charge_id,
    });

  /** The page for a link as it is now: the code form, a wait, the merchant, or why there is nothing to do. */
  function show(
    request: FastifyRequest,
    reply: FastifyReply,
    state: CardAuthenticationState | null,
    wrongCode: boolean,
  ) {
    if (!state) return html(reply, 404, views.renderUnknownLinkPage());
    const { charge, authentication } = state;
    if (state.expired && charge.status !== 'success') return html(reply, 404, views.renderExpiredPage());
    if (charge.status !== 'pending') return reply.redirect(merchantRedirect(state), 303);
    const acquirerPage =
      charge.next_action === 'redirect' ? payments.providerFor(charge.mode).customerRedirect(charge) : null;
    if (acquirerPage) return reply.redirect(acquirerPage, 303);
    if (charge.next_action !== 'otp') return html(reply, 200, views.renderConfirmingPage(summaryOf(state)), state);
    const triesLeft = codeTriesLeft(authentication);
    const form: views.CodeFormState = {
      csrfToken: issueCsrfCookie(request, reply, PATH, secureCookies),
      action: selfUrl(authentication.reference),
      cardText: cardName(charge),
      error: wrongCode ? 'That code was not right: check the code your bank sent and enter it again.' : null,
      triesLeft: wrongCode ? `${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left` : null,
      testOtp: charge.mode === 'test' ? TEST_OTP : null,
    };
    return html(reply, wrongCode ? 422 : 200, views.renderCodePage(summaryOf(state), form), state);
  }

  app.get<{ Querystring: Query }>(
    PATH,
    {
      errorHandler: answerPageError,
      schema: pageSchema('showThreeDSecurePage', 'The 3-D Secure page of a direct card charge (the `3ds_auth_link`)', {
        200: 'The one-time code form',
        303: "The charge has ended: on to the merchant's redirect_url",
        404: 'Unknown or expired link',
      }),
    },
    async (request, reply) => {
      const reference = request.query.reference ?? '';
      const state = REFERENCE.test(reference)
        ? await findCardAuthentication(payments, reference, payments.clock.now())
        : null;
      return show(request, reply, state, false);
    },
  );

  app.get<{ Querystring: Query }>(
    RETURN_PATH,
    {
      config: { servedWhenOverloaded: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'returnFromThreeDSecure',
        "Where a live card's acquirer sends the customer back after its own 3-D Secure page",
        {
          200: 'The acquirer has not told its outcome yet: a page that looks again by itself',
          303: "The charge has ended: on to the merchant's redirect_url with charge_id and status",
          404: 'Unknown or expired link',
        },
      ),
    },
    async (request, reply) => {
      const reference = request.query.reference ?? '';
      const state = REFERENCE.test(reference) ? await returnFromAcquirer(payments, reference) : null;
      if (!state) return html(reply, 404, views.renderUnknownLinkPage());
      if (state.charge.status !== 'pending') return reply.redirect(merchantRedirect(state), 303);
      if (state.expired) return html(reply, 404, views.renderExpiredPage());
      return html(reply, 200, views.renderConfirmingPage(summaryOf(state)), state);
    },
  );

  app.post<{ Querystring: Query; Body: Form }>(
    PATH,
    {
      config: { form: true, servedWhenOverloaded: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'confirmThreeDSecureCode',
        "Confirm a direct card charge with its one-time code (the page's form)",
        {
          303: "The charge has ended: on to the merchant's redirect_url with charge_id and status",
          403: "The form's anti-forgery token or origin did not match",
          404: 'Unknown or expired link',
          422: 'The code was wrong: the form again, with the tries left',
        },
      ),
    },
    async (request, reply) => {
      const reference = request.query.reference ?? '';
      if (!REFERENCE.test(reference)) return html(reply, 404, views.renderUnknownLinkPage());
      if (!fromOurOrigin(request, config.publicBaseUrl) || !csrfTokenMatches(request, request.body?.csrf))
        return html(reply, 403, views.renderForbiddenCodePage(selfUrl(reference)));
      const answer = await submitCardCode(payments, reference, request.body.otp ?? '');
      return show(request, reply, answer?.state ?? null, answer?.wrongCode ?? false);
    },
  );
}
