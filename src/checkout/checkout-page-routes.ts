import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { sendHtml } from '../http/html.ts';
import type { App } from '../http/app-type.ts';
import type { Charge } from '../core/charge-repository.ts';
import type { Form } from '../http/json-body.ts';
import {
  TEST_BANK_TRANSFERS,
  TEST_CARDS,
  TEST_MOBILE_NUMBERS,
  TEST_OTP,
} from '../connectors/sandbox/sandbox-provider.ts';
import { moneyText } from '../shared/money.ts';
import { formatHumanDate } from '../shared/time.ts';
import { localMaskedMobile } from '../shared/phone.ts';
import { isHttps } from '../shared/urls.ts';
import {
  abandonAttempt,
  cancelSession,
  confirmCardOtp,
  startBankTransferAttempt,
  startCardAttempt,
  startMobileMoneyAttempt,
  type AttemptResult,
} from './checkout-payments.ts';
import type { PaymentDeps } from '../core/payment-deps.ts';
import { failureRedirect, merchantOrigins, successRedirect } from './checkout-redirects.ts';
import { findSessionById, type CheckoutSession, type PageSession } from '../core/session-repository.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import { csrfTokenMatches, fromOurOrigin, issueCsrfToken } from '../web/csrf.ts';
import type { SafeHtml } from '../web/html.ts';
import { pageErrorHandler } from '../web/page-errors.ts';
import { cardName, instrumentName } from '../core/customer-names.ts';
import { adviceSentence, failureAdvice, triesLeftText } from './page/failure-advice.ts';
import * as views from './page/views.ts';
import { renderFrameResultPage } from './page/browser-views.ts';
import {
  attemptPageState,
  cancelPageState,
  currentAttempt,
  loadSession,
  sessionPageState,
  setAside,
  type SessionPageState,
} from './page-state.ts';

interface PageDeps {
  config: Config;
  payments: PaymentDeps;
}

type Params = { id: string; chargeId?: string };

/** What a test-mode page lists; one object, so that its rendering is made once (see `testBanner`). */
const TEST_INSTRUMENTS = {
  numbers: TEST_MOBILE_NUMBERS,
  cards: TEST_CARDS,
  otp: TEST_OTP,
  transfers: TEST_BANK_TRANSFERS,
};

/** After the last failed try, how long our page shows what happened before the browser goes back to the shop by itself. */
const RETURN_AFTER_SECONDS = 15;

/** The hosted checkout (docs/integrate/api-reference.md#the-hosted-checkout): the page, its forms, the attempt pages and their status poll. */
export function registerCheckoutPageRoutes(app: App, { config, payments }: PageDeps): void {
  const db = payments.db;
  const secureCookies = isHttps(config.publicBaseUrl);
  const pagePath = (session: CheckoutSession) => `/checkout/${session.id}`;
  const attemptPath = (session: CheckoutSession, charge: Charge) => `${pagePath(session)}/attempts/${charge.charge_id}`;
  const donePath = (session: CheckoutSession) => `${pagePath(session)}/done`;
  /** Where a live card's acquirer sends the customer back to from its own 3-D Secure page. */
  const returnPath = (session: CheckoutSession, charge: Charge) => `${attemptPath(session, charge)}/return`;
  /** The page of a card attempt waiting for its issuer or acquirer, polling the attempt's status. */
  const cardWaiting = (session: CheckoutSession, charge: Charge, keepPayingUrl: string): views.ApprovalState => ({
    awaiting: 'card',
    cardText: cardName(charge),
    statusUrl: `${attemptPath(session, charge)}/status`,
    keepPayingUrl,
  });
  /**
   * Where the browser goes when the payment ends (docs/integrate/api-reference.md#redirects). A session shown in the inline popup
   * goes to its own last page instead, which tells the merchant's page in a message: the frame
   * must not become the merchant's page, the top window goes there.
   */
  const successTarget = (session: CheckoutSession) =>
    session.frame_origin ? donePath(session) : successRedirect(session);
  const failureTarget = (session: CheckoutSession) =>
    session.frame_origin ? donePath(session) : failureRedirect(session);
  const csrfToken = (request: FastifyRequest, reply: FastifyReply, session: CheckoutSession) =>
    pageCsrfToken(request, reply, session, secureCookies);

  const showPaymentPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    session: PageSession,
    status: number,
    state: Partial<views.PaymentFormState>,
  ) => sendPaymentPage(request, reply, session, secureCookies, status, state);

  /** A session that has ended is shown as such: its receipt, or why it ended. */
  function showEnded(reply: FastifyReply, state: Exclude<SessionPageState, { page: 'unknown' | 'paying' }>) {
    const { session } = state;
    const summary = summaryOf(session);
    if (state.page === 'paid') {
      const payment = state.payment;
      const receipt = {
        paidWith: payment ? instrumentName(payment) : '',
        completedAt: formatHumanDate(session.completed_at ?? session.updated_at, config.timeZone),
        continueUrl: successTarget(session),
      };
      return html(reply, session, 200, views.renderReceiptPage(summary, receipt));
    }
    return html(
      reply,
      session,
      200,
      views.renderEndedPage(summary, { why: state.why, returnUrl: failureTarget(session) }),
    );
  }

  /** After a session ends the browser goes back to the merchant, or to our own page when there is no URL to go to. */
  const leave = (reply: FastifyReply, session: CheckoutSession) =>
    reply.redirect(
      (session.status === 'success' ? successTarget(session) : failureTarget(session)) ?? pagePath(session),
      303,
    );

  /** Loads the session a form posts to, or answers for it: unknown, forged, or already ended. */
  async function formSession(
    request: FastifyRequest<{ Params: Params; Body: Form }>,
    reply: FastifyReply,
  ): Promise<PageSession | null> {
    const session = await loadSession(payments, request.params.id);
    if (!session) {
      html(reply, null, 404, views.renderNotFoundPage());
      return null;
    }
    if (!fromOurOrigin(request, config.publicBaseUrl) || !csrfTokenMatches(request, request.body?.csrf)) {
      html(reply, session, 403, views.renderForbiddenPage(pagePath(session)));
      return null;
    }
    if (session.status !== 'pending') {
      leave(reply, session);
      return null;
    }
    return session;
  }

  function answerAttempt(
    request: FastifyRequest,
    reply: FastifyReply,
    session: PageSession,
    result: AttemptResult,
    state: Partial<views.PaymentFormState>,
  ) {
    if ('charge' in result) return reply.redirect(attemptPath(session, result.charge), 303);
    return showPaymentPage(request, reply, session, 422, { ...state, error: result.refused });
  }

  app.get(
    '/checkout/assets/:file',
    {
      errorHandler: answerPageError,
      // The page's own files, as /js/frame-result.js: no integration calls them.
      schema: { hide: true },
    },
    async (request, reply) => {
      const { file } = request.params as { file: string };
      // Own entries only: `toString` or `__proto__` would otherwise find Object.prototype's.
      const asset = Object.hasOwn(views.ASSETS, file) ? views.ASSETS[file] : undefined;
      if (!asset) return html(reply, null, 404, views.renderNotFoundPage());
      return reply
        .type(asset.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=3600')
        .send(asset.body);
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id',
    {
      errorHandler: answerPageError,
      schema: pageSchema('showCheckoutPage', 'The hosted checkout page (the `checkout_url`)', {
        200: 'The payment page, or the receipt or ending of a finished session',
        404: 'Unknown link',
      }),
    },
    async (request, reply) => {
      const state = await sessionPageState(payments, request.params.id);
      if (state.page === 'unknown') return html(reply, null, 404, views.renderNotFoundPage());
      if (state.page === 'paying') return showPaymentPage(request, reply, state.session, 200, {});
      return showEnded(reply, state);
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/pay/mobile-money',
    {
      config: { form: true },
      errorHandler: answerPageError,
      schema: pageSchema('payCheckoutByMobileMoney', "Pay by mobile money (the page's form)", FORM_ANSWERS),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      const mobile = request.body.mobile ?? '';
      const operator =
        request.body.operator === 'airtel' || request.body.operator === 'tnm' ? request.body.operator : '';
      const result = await startMobileMoneyAttempt(payments, session, { mobile, operator: operator || undefined });
      return answerAttempt(request, reply, session, result, { method: 'mobile_money', mobile, operator });
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/pay/card',
    {
      config: { form: true },
      errorHandler: answerPageError,
      schema: pageSchema('payCheckoutByCard', "Pay by card (the page's form)", FORM_ANSWERS),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      const { card_number: number = '', expiry = '', cvv = '' } = request.body;
      const result = await startCardAttempt(payments, session, {
        number,
        expiry,
        cvv,
        returnUrlOf: (charge) => `${config.publicBaseUrl}${returnPath(session, charge)}`,
      });
      return answerAttempt(request, reply, session, result, { method: 'card' });
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id/done',
    {
      config: { servedWhenOverloaded: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'showPopupCheckoutResult',
        "The last page of a session shown in the inline popup: posts the result to the merchant's page",
        {
          200: 'The page posting the result',
          303: 'Back to the payment page while it is pending; to the merchant for a session not shown in the popup',
          404: 'Unknown link',
        },
      ),
    },
    async (request, reply) => {
      const session = await loadSession(payments, request.params.id);
      if (!session) return html(reply, null, 404, views.renderNotFoundPage());
      if (session.status === 'pending') return reply.redirect(pagePath(session), 303);
      if (!session.frame_origin) return leave(reply, session);
      const succeeded = session.status === 'success';
      const result = {
        tx_ref: session.tx_ref,
        status: session.status,
        transaction_id: succeeded ? session.reference : null,
        redirect_url: succeeded ? successRedirect(session) : failureRedirect(session),
      };
      return html(reply, session, 200, renderFrameResultPage(session.merchant_name, session.frame_origin, result));
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/pay/bank-transfer',
    {
      config: { form: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'payCheckoutByBankTransfer',
        "Pay by bank transfer: opens a one-time account (the page's form)",
        FORM_ANSWERS,
      ),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      const result = await startBankTransferAttempt(payments, session, session.merchant_name);
      return answerAttempt(request, reply, session, result, { method: 'bank_transfer' });
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id/cancel',
    {
      errorHandler: answerPageError,
      schema: pageSchema(
        'askToCancelCheckout',
        "Asks the customer to confirm cancelling (without JavaScript; the page's script asks in place)",
        { 200: 'The question, or the ending of a finished session', 404: 'Unknown link' },
      ),
    },
    async (request, reply) => {
      const state = await cancelPageState(payments, request.params.id);
      if (state.page === 'unknown') return html(reply, null, 404, views.renderNotFoundPage());
      if (state.page !== 'confirmCancel') return showEnded(reply, state);
      const { session, inFlight } = state;
      const context = { sessionId: session.id, csrfToken: csrfToken(request, reply, session) };
      const cancel = {
        keepPayingUrl: inFlight ? attemptPath(session, inFlight) : pagePath(session),
        requestOut: inFlight?.next_action === 'approve',
      };
      return html(reply, session, 200, views.renderCancelPage(summaryOf(session), context, cancel));
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/cancel',
    {
      config: { form: true },
      errorHandler: answerPageError,
      schema: pageSchema('cancelCheckout', "Cancel the payment (the confirmation's form)", FORM_ANSWERS),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      await cancelSession(payments, session);
      return leave(reply, (await findSessionById(db, session.id)) ?? session);
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id/attempts/:chargeId',
    {
      errorHandler: answerPageError,
      schema: pageSchema(
        'showCheckoutAttempt',
        'An attempt: waiting for approval, the one-time code, or where to go next',
        {
          200: "The attempt's page",
          303: 'On to the merchant or the payment page',
          404: 'Unknown attempt',
        },
      ),
    },
    async (request, reply) => {
      const state = await attemptPageState(payments, request.params.id, request.params.chargeId ?? '');
      switch (state.page) {
        case 'unknown':
          return html(reply, null, 404, views.renderNotFoundPage());
        case 'left':
          return leave(reply, state.session);
        case 'lastTryFailed': {
          const ended = {
            why: 'failed' as const,
            returnUrl: failureTarget(state.session),
            lastFailure: failureAdvice(state.charge),
            returnAfterSeconds: RETURN_AFTER_SECONDS,
          };
          return html(reply, state.session, 200, views.renderEndedPage(summaryOf(state.session), ended));
        }
        case 'failed':
          // The full number was never stored: the page's script puts back what was typed in this tab.
          return showPaymentPage(request, reply, state.session, 200, {
            error: adviceSentence(failureAdvice(state.charge)),
            triesLeft: triesLeftText(state.triesLeft),
            method: methodOf(state.charge),
            operator: state.charge.operator ?? '',
          });
        case 'backToForm':
          return reply.redirect(pagePath(state.session), 303);
        case 'acquirer':
          return reply.redirect(state.url, 303);
      }
      const { session, charge } = state;
      const summary = summaryOf(session);
      const context = { sessionId: session.id, csrfToken: csrfToken(request, reply, session) };
      const here = attemptPath(session, charge);
      if (state.page === 'transfer') {
        const { account } = state;
        const transfer = {
          bankName: account.bank_name,
          accountNumber: account.account_number,
          accountName: account.account_name,
          secondsLeft: Math.max(0, Math.floor((account.expires_at - payments.clock.now()) / 1000)),
          abandonAction: `${here}/abandon`,
          statusUrl: `${here}/status`,
          keepPayingUrl: here,
        };
        return html(reply, session, 200, views.renderBankTransferPage(summary, context, transfer));
      }
      if (state.page === 'otp') {
        const otp = {
          cardText: cardName(charge),
          action: `${here}/otp`,
          error: null,
          testOtp: session.mode === 'test' ? TEST_OTP : null,
          keepPayingUrl: here,
        };
        return html(reply, session, 200, views.renderOtpPage(summary, context, otp));
      }
      const waiting: views.ApprovalState =
        charge.channel === 'card'
          ? cardWaiting(session, charge, here)
          : {
              awaiting: 'phone',
              operator: charge.operator,
              maskedNumber: localMaskedMobile(charge.mobile ?? ''),
              waitedSeconds: Math.max(0, Math.floor((payments.clock.now() - charge.created_at) / 1000)),
              abandonAction: `${here}/abandon`,
              statusUrl: `${here}/status`,
              keepPayingUrl: here,
            };
      return html(reply, session, 200, views.renderApprovalPage(summary, context, waiting));
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id/attempts/:chargeId/return',
    {
      config: { servedWhenOverloaded: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'returnFromCardAcquirer',
        "Where a live card's acquirer sends the customer back after its own 3-D Secure page",
        {
          200: 'The acquirer has not told its outcome yet: the waiting page',
          303: "On to the attempt's outcome",
          404: 'Unknown attempt',
        },
      ),
    },
    async (request, reply) => {
      const attempt = await currentAttempt(payments, request.params.id, request.params.chargeId ?? '', {
        backFromAcquirer: true,
      });
      if (!attempt) return html(reply, null, 404, views.renderNotFoundPage());
      const { session, charge } = attempt;
      if (session.status !== 'pending' || charge.status !== 'pending' || charge.next_action !== 'redirect')
        return reply.redirect(attemptPath(session, charge), 303);
      const context = { sessionId: session.id, csrfToken: csrfToken(request, reply, session) };
      return html(
        reply,
        session,
        200,
        views.renderApprovalPage(
          summaryOf(session),
          context,
          cardWaiting(session, charge, returnPath(session, charge)),
        ),
      );
    },
  );

  app.get<{ Params: Params }>(
    '/checkout/:id/attempts/:chargeId/status',
    {
      schema: {
        operationId: 'getCheckoutAttemptStatus',
        summary: 'What the waiting page polls: `{status, next_url}`',
        response: { 200: AttemptStatus, 404: AttemptStatus },
      },
    },
    async (request, reply) => {
      const attempt = await currentAttempt(payments, request.params.id, request.params.chargeId ?? '');
      if (!attempt)
        return reply.code(404).header('cache-control', 'no-store').send({ status: 'unknown', next_url: null });
      const { session, charge } = attempt;
      const settled = session.status !== 'pending' || charge.status !== 'pending' || setAside(session, charge);
      return reply
        .header('cache-control', 'no-store')
        .send({ status: charge.status, next_url: settled ? attemptPath(session, charge) : null });
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/attempts/:chargeId/abandon',
    {
      config: { form: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'abandonCheckoutAttempt',
        "Set aside a mobile money request that did not reach the phone, or a bank transfer account, to pay another way (the waiting page's form)",
        FORM_ANSWERS,
      ),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      const chargeId = request.params.chargeId ?? '';
      const charge = REFERENCE_PATTERN.test(chargeId) ? await abandonAttempt(payments, session, chargeId) : null;
      if (!charge) return html(reply, session, 404, views.renderNotFoundPage());
      const after = (await findSessionById(db, session.id)) ?? session;
      if (after.status !== 'pending') return leave(reply, after);
      // An attempt that had already failed shows why; otherwise the form is open for another number.
      return reply.redirect(charge.status === 'failed' ? attemptPath(session, charge) : pagePath(session), 303);
    },
  );

  app.post<{ Params: Params; Body: Form }>(
    '/checkout/:id/attempts/:chargeId/otp',
    {
      config: { form: true, servedWhenOverloaded: true },
      errorHandler: answerPageError,
      schema: pageSchema(
        'confirmCheckoutCardCode',
        "Confirm a card payment with its one-time code (the page's form)",
        FORM_ANSWERS,
      ),
    },
    async (request, reply) => {
      const session = await formSession(request, reply);
      if (!session) return reply;
      const chargeId = request.params.chargeId ?? '';
      const charge = REFERENCE_PATTERN.test(chargeId)
        ? await confirmCardOtp(payments, session, chargeId, request.body.otp ?? '')
        : null;
      if (!charge) return html(reply, session, 404, views.renderNotFoundPage());
      return reply.redirect(attemptPath(session, charge), 303);
    },
  );
}

/** What the hosted pages show of a payment: a session's, or a direct card charge's put the same way by its 3-D Secure page. */
export type SummarySource = Pick<
  PageSession,
  | 'mode'
  | 'merchant_name'
  | 'merchant_email'
  | 'merchant_logo_url'
  | 'merchant_brand_color'
  | 'currency'
  | 'amount_minor'
  | 'title'
  | 'description'
  | 'logo'
  | 'first_name'
  | 'last_name'
  | 'reference'
  | 'tx_ref'
>;

export function summaryOf(session: SummarySource): views.SessionSummary {
  return {
    mode: session.mode,
    merchantName: session.merchant_name,
    merchantEmail: session.merchant_email,
    currency: session.currency,
    title: session.title,
    description: session.description,
    logoUrl: session.logo ?? session.merchant_logo_url,
    brandColor: session.merchant_brand_color,
    amountText: moneyText(session.currency, session.amount_minor),
    customerName: [session.first_name, session.last_name].filter(Boolean).join(' '),
    reference: session.reference,
    txRef: session.tx_ref,
  };
}

const html = (reply: FastifyReply, session: CheckoutSession | null, status: number, page: SafeHtml) =>
  sendHtml(reply, status, page, session ? merchantOrigins(session) : [], session?.frame_origin ?? null);

const pageCsrfToken = (
  request: FastifyRequest,
  reply: FastifyReply,
  session: CheckoutSession,
  secureCookies: boolean,
) => issueCsrfToken(request, reply, session.id, secureCookies, session.frame_origin !== null);

/**
 * A pending session's payment page, with its forms' token: what `GET /checkout/:id` answers (and
 * the bench's floor row for that route, which is why it is not inside the routes' closure).
 */
export function sendPaymentPage(
  request: FastifyRequest,
  reply: FastifyReply,
  session: PageSession,
  secureCookies: boolean,
  status: number,
  state: Partial<views.PaymentFormState>,
) {
  const context = { sessionId: session.id, csrfToken: pageCsrfToken(request, reply, session, secureCookies) };
  const testInstruments = session.mode === 'test' ? TEST_INSTRUMENTS : null;
  const page = views.renderPaymentPage(summaryOf(session), context, {
    error: null,
    triesLeft: null,
    method: 'mobile_money',
    mobile: '',
    operator: '',
    testInstruments,
    ...state,
  });
  return html(reply, session, status, page);
}

/** The form a failed attempt's page opens again: the method it was made with. */
function methodOf(charge: Charge): views.PaymentFormState['method'] {
  if (charge.channel === 'card' || charge.channel === 'bank_transfer') return charge.channel;
  return 'mobile_money';
}

/** A checkout page that fails is answered with a page; client errors keep the API's answer (the forms' own checks answer in HTML). */
export const answerPageError = pageErrorHandler(views.renderUnavailablePage);

/** How a page route is documented: HTML answers (and redirects) with what each status means. */
export function pageSchema(operationId: string, summary: string, answers: Record<number, string>) {
  const response = Object.fromEntries(
    Object.entries({ ...answers, 503: 'Payments are paused for a moment (the database is out of reach)' }).map(
      ([status, description]) => [
        status,
        Number(status) === 303
          ? { description }
          : { description, content: { 'text/html': { schema: { type: 'string' } } } },
      ],
    ),
  );
  return { operationId, summary, response };
}

const FORM_ANSWERS = {
  303: "On to the attempt's page, or to the merchant when the session has ended",
  403: "The form's anti-forgery token or origin did not match",
  404: 'Unknown link',
  422: 'The payment page again, saying why the attempt was refused',
};

const AttemptStatus = Type.Object({ status: Type.String(), next_url: Type.Union([Type.String(), Type.Null()]) });
