import { Type } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import type { App } from '../http/app-type.ts';
import { ErrorEnvelope, SuccessEnvelope, success } from '../http/envelope.ts';
import { sendHtml } from '../http/html.ts';
import { ApiError } from '../shared/errors.ts';
import { LANDING_STYLESHEET, renderLandingPage, type Query } from './landing-page.ts';
import { LANDING_PATH, STYLESHEET_PATH, WEBHOOK_SINK_PATH } from './sandbox-urls.ts';

/** What the sink reads of a webhook: only whether it is a test one. */
const SinkBody = Type.Object({ mode: Type.String() });

/**
 * Stand-ins for a merchant's own server while it develops against test keys: a page to give as
 * `callback_url` and `return_url`, and a webhook receiver. Neither reads nor writes the database,
 * neither needs a key, and both are limited per client address like every other route without
 * one.
 */
export function registerSandboxRoutes(app: App, { config }: { config: Config }): void {
  app.get(
    LANDING_PATH,
    {
      schema: {
        operationId: 'showSandboxLanding',
        summary: 'A page to use as callback_url and return_url while developing',
        description:
          "Shows, escaped, what the checkout's redirect carried (`tx_ref`, `status`, `transaction_id` and the URL's own parameters) and how to verify the payment from your server. Stores nothing.",
        response: { 200: { description: 'The page', content: { 'text/html': { schema: Type.String() } } } },
      },
    },
    async (request, reply) => sendHtml(reply, 200, renderLandingPage(request.query as Query, config.publicBaseUrl)),
  );

  app.get(
    STYLESHEET_PATH,
    // The landing page's own file, as /js/frame-result.js: no integration calls it.
    { schema: { hide: true } },
    async (_request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=3600')
        .send(LANDING_STYLESHEET),
  );

  app.post(
    WEBHOOK_SINK_PATH,
    {
      schema: {
        operationId: 'receiveSandboxWebhook',
        summary: 'A webhook receiver for test merchants',
        description:
          "Answers 200 to every test-mode webhook and keeps nothing, so a test merchant sees its deliveries succeed in `lipira webhooks list` without a server of its own. A live webhook is refused (400): it must go to the merchant's own server. On a loopback address, test webhooks reach it only with `WEBHOOK_ALLOW_LOOPBACK=on`.",
        body: SinkBody,
        response: { 200: SuccessEnvelope(Type.Null()), 400: Type.Ref(ErrorEnvelope) },
      },
    },
    async (request) => {
      if (request.body.mode !== 'test')
        throw ApiError.field(
          'mode',
          'The webhook sink takes test-mode webhooks only; send live ones to your own server.',
        );
      return success('Webhook received; nothing was kept.', null);
    },
  );
}
