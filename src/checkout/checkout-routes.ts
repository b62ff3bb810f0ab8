import type { Config } from '../config.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import type { App } from '../http/app-type.ts';
import { ApiError } from '../shared/errors.ts';
import {
  CurrentCreateBody,
  CurrentCreateResponse,
  CurrentVerifyResponse,
  LegacyCreateBody,
  LegacyCreateResponse,
  LegacyVerifyResponse,
  TxRefParams,
} from './checkout-schemas.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import {
  checkoutDeps,
  createSession,
  sessionToVerify,
  verifySession,
  type CheckoutContext,
} from './checkout-service.ts';
import { normalizeCheckoutBody } from './checkout-tolerance.ts';
import { normalizing } from '../http/tolerance.ts';
import { checkoutUrl, createdView, currentVerifyView, legacyVerifyView } from './checkout-views.ts';

export function registerCheckoutRoutes(app: App, ctx: CheckoutContext & { config: Config }): void {
  const { config } = ctx;
  const deps = checkoutDeps(ctx);
  const normalize = normalizing(normalizeCheckoutBody);

  app.post(
    '/payment',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalize,
      schema: {
        operationId: 'createCheckoutSession',
        summary: 'Create a hosted checkout session',
        body: CurrentCreateBody,
        response: { 201: CurrentCreateResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const session = await createSession(deps, principalOf(request), { generation: 'current', ...request.body });
      const view = createdView(session, checkoutUrl(config.publicBaseUrl, session));
      return reply.code(201).send(success('Hosted payment session generated successfully.', view));
    },
  );

  app.post(
    '/api/payment',
    {
      config: { startsNewWork: true, auth: 'secret-or-body' },
      preValidation: normalize,
      schema: {
        operationId: 'createLegacyCheckoutSession',
        summary: 'Create a hosted checkout session (legacy)',
        body: LegacyCreateBody,
        response: { 201: LegacyCreateResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { secret_key: _secret, ...fields } = request.body;
      const session = await createSession(deps, principalOf(request), { generation: 'legacy', ...fields });
      return reply.code(201).send(
        success('Hosted payment session generated successfully.', {
          checkout_url: checkoutUrl(config.publicBaseUrl, session),
        }),
      );
    },
  );

  app.get(
    '/verify-payment/:tx_ref',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'verifyPayment',
        summary: 'Verify a checkout payment',
        params: TxRefParams,
        response: { 200: CurrentVerifyResponse, ...errorResponses },
      },
    },
    async (request) => {
      const verified = await verifySession(deps, principalOf(request), knownReference(request.params.tx_ref));
      return success('Payment details retrieved successfully.', currentVerifyView(verified));
    },
  );

  app.get(
    '/api/verify-payment/:tx_ref',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'verifyLegacyPayment',
        summary: 'Verify a checkout payment (legacy)',
        params: TxRefParams,
        response: { 200: LegacyVerifyResponse, ...errorResponses },
      },
    },
    async (request) => {
      const session = await sessionToVerify(deps, principalOf(request), knownReference(request.params.tx_ref));
      return success('Payment details', legacyVerifyView(session));
    },
  );
}

/** A reference we could never have stored is simply not found. */
function knownReference(txRef: string): string {
  if (!REFERENCE_PATTERN.test(txRef)) throw new ApiError('transactionNotFound');
  return txRef;
}
