import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { principalOf } from '../http/auth.ts';
import type { App } from '../http/app-type.ts';
import { errorResponses, success } from '../http/envelope.ts';
import { normalizing } from '../http/tolerance.ts';
import { isPlainOrigin } from '../shared/urls.ts';
import { Ajv } from 'ajv';
import { ajvPlugin, AJV_OPTIONS } from '../http/validation.ts';
import {
  CurrentCreateBody,
  CurrentCreateResponse,
  HostedFormBody,
  type CurrentCreateInput,
} from './checkout-schemas.ts';
import { checkoutDeps, createSession, type CheckoutContext } from './checkout-service.ts';
import { normalizeCheckoutBody } from './checkout-tolerance.ts';
import { checkoutUrl, createdView } from './checkout-views.ts';
import { hostedFormBody } from './hosted-form.ts';
import { BROWSER_SCRIPTS, renderFormErrorPage } from './page/browser-views.ts';
import { renderUnavailablePage } from './page/views.ts';
import { pageErrorHandler } from '../web/page-errors.ts';

/**
 * The browser integrations (docs/integrate/api-reference.md#browser-integrations), which take a merchant's public key and may only create
 * checkout sessions:
 * - `GET /js/popup.js`, the inline popup's script, which creates its session with
 *   `POST /popup/payment` (a CORS request from the merchant's page) and shows the hosted page in a
 *   frame that only that page's origin may hold;
 * - `POST /hosted-payment-page`, the HTML checkout: a form posted from the merchant's page,
 *   answered with a redirect to the hosted page, or with an HTML page saying what was wrong.
 * Sessions are made by the same service as `POST /payment`, in the key's mode.
 */
/**
 * What the HTML checkout's form is checked against once its names are folded (see the route): the
 * create body, with the server's own Ajv options, formats and keywords, so its messages are the API's.
 */
const validateFormAsCreate = ajvPlugin(new Ajv(AJV_OPTIONS)).compile(CurrentCreateBody);

export function registerBrowserRoutes(app: App, ctx: CheckoutContext & { config: Config }): void {
  const { config } = ctx;
  const deps = checkoutDeps(ctx);

  app.get(
    '/js/popup.js',
    {
      schema: scriptSchema(
        'getPopupScript',
        "The inline popup: defines `PaychanguCheckout(options)` for a merchant's page",
      ),
    },
    async (_request, reply) => sendScript(reply, BROWSER_SCRIPTS.popup),
  );
  app.get('/js/frame-result.js', { schema: { hide: true } }, async (_request, reply) =>
    sendScript(reply, BROWSER_SCRIPTS.frameResult),
  );

  // The preflight is served however busy the gateway is (no query): refused, the page could not
  // read the busy answer to its create, and would take it for a network failure.
  app.options(
    '/popup/payment',
    { config: { ignoreBody: true, servedWhenOverloaded: true }, schema: { hide: true } },
    async (request, reply) => {
      allowOrigin(request, reply);
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'authorization, content-type')
        .header('access-control-max-age', '600')
        .send();
    },
  );

  app.post(
    '/popup/payment',
    {
      config: { startsNewWork: true, auth: 'public' },
      // onSend, so that refusals by the hooks (401, 429) reach the page's script readable too.
      onSend: (request, reply, payload, done) => {
        allowOrigin(request, reply);
        done(null, payload);
      },
      preValidation: normalizing(normalizeCheckoutBody),
      schema: {
        operationId: 'createPopupCheckoutSession',
        summary: 'Create a checkout session from a browser, with a public key (what /js/popup.js calls)',
        description:
          "Takes `Authorization: Bearer <public key>` and the body of `POST /payment`; answers as `POST /payment` does, with CORS headers for the calling origin. The calling page's origin is recorded: it alone may show the session's pages in a frame, and receives the result by `postMessage`.",
        body: CurrentCreateBody,
        response: { 201: CurrentCreateResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const origin = request.headers.origin;
      const frameOrigin = origin !== undefined && isPlainOrigin(origin) ? origin : undefined;
      const session = await createSession(deps, principalOf(request), {
        generation: 'current',
        ...request.body,
        frameOrigin,
      });
      const view = createdView(session, checkoutUrl(config.publicBaseUrl, session));
      return reply.code(201).send(success('Hosted payment session generated successfully.', view));
    },
  );

  app.post(
    '/hosted-payment-page',
    {
      config: { startsNewWork: true, auth: 'public', form: true },
      errorHandler: answerFormError,
      // The form parser (`config.form`) gives names to texts; the rest is the JSON body's tolerance.
      preValidation: normalizing((form) => normalizeCheckoutBody(hostedFormBody(form as Record<string, string>), null)),
      // The schema below documents the form as posted; by validation time it is a create body.
      validatorCompiler: () => validateFormAsCreate,
      schema: {
        operationId: 'submitHtmlCheckout',
        summary:
          "The HTML checkout: a form posted from the merchant's page, answered with a redirect to the hosted page",
        description:
          "An `application/x-www-form-urlencoded` form with `public_key` and the fields of `POST /payment`: flat `email`, `first_name`, `last_name`, `title`, `description`, or bracketed `customer[email]`, `customization[title]`, …, and `meta[key]`. Answers 302 to the session's `checkout_url`; a refusal is an HTML page saying what was wrong.",
        consumes: ['application/x-www-form-urlencoded'],
        body: HostedFormBody,
        response: {
          302: { description: 'To the hosted checkout page of the new session' },
          ...htmlAnswers({
            400: 'The form was incomplete or invalid',
            401: 'The public key is missing, unknown or a secret key',
            429: 'Too many requests from this address or key',
          }),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as unknown as CurrentCreateInput;
      const session = await createSession(deps, principalOf(request), { generation: 'current', ...body });
      return reply.redirect(checkoutUrl(config.publicBaseUrl, session), 302);
    },
  );
}

/**
 * Any page may call `POST /popup/payment`: the public key says whose session it is, and the calling
 * origin is the one recorded. The origin is echoed, never `*`, and only when it is a plain origin.
 */
function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin');
  if (origin !== undefined && isPlainOrigin(origin)) reply.header('access-control-allow-origin', origin);
}

/**
 * A script any site may include: cached for a short while (merchants link it as it is, so a fix
 * must reach them within minutes), never sniffed as anything else, loadable by pages that isolate
 * themselves (Cross-Origin-Embedder-Policy).
 */
export function sendScript(reply: FastifyReply, body: string): FastifyReply {
  return reply
    .type('text/javascript; charset=utf-8')
    .header('cache-control', 'public, max-age=300')
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-resource-policy', 'cross-origin')
    .send(body);
}

/** The form's refusals as a page: a customer's browser posted it, and reads HTML, never the API's JSON. */
const answerFormError = pageErrorHandler(renderUnavailablePage, (failure) => {
  const problems = typeof failure.body === 'string' ? [failure.body] : Object.values(failure.body).flat();
  const heading =
    failure.status === 401
      ? "This shop's payment form is not set up right"
      : failure.status === 429
        ? 'Too many payment requests'
        : 'This payment could not be started';
  return renderFormErrorPage(heading, problems);
});

function htmlAnswers(answers: Record<number, string>) {
  return Object.fromEntries(
    Object.entries(answers).map(([status, description]) => [
      status,
      { description, content: { 'text/html': { schema: { type: 'string' } } } },
    ]),
  );
}

function scriptSchema(operationId: string, summary: string) {
  return {
    operationId,
    summary,
    response: { 200: { description: 'The script', content: { 'text/javascript': { schema: { type: 'string' } } } } },
  };
}
