import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { Config } from '../config.ts';
import type { App } from '../http/app-type.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, success } from '../http/envelope.ts';
import { sendError, toApiError } from '../http/error-reply.ts';
import { normalizeBody, normalizing } from '../http/tolerance.ts';
import { ApiError } from '../shared/errors.ts';
import { chargeRecord } from '../core/charge-views.ts';
import { ChargeIdParams, ChargeRecordResponse } from '../core/charge-schemas.ts';
import { PAYOUT_BANKS } from './banks.ts';
import { bankPayoutFieldErrors } from './bank-payout-errors.ts';
import { normalizeBankPayoutBody } from './bank-payout-tolerance.ts';
import { bankPayoutDetails, bankPayoutPage, initializeBankPayout } from './bank-payouts.ts';
import { bankPayoutDetailsRecord, bankPayoutListPage, bankPayoutRecord } from './bank-payout-views.ts';
import { initializePayout } from './mobile-money-payouts.ts';
import {
  BankPayoutDetailsResponse,
  BankPayoutListQuery,
  BankPayoutListResponse,
  BankPayoutResponse,
  InitializeBankPayoutBody,
  InitializePayoutBody,
  SupportedBanksQuery,
  SupportedBanksResponse,
} from './payout-schemas.ts';

const SUPPORTED_BANKS = PAYOUT_BANKS.map(({ uuid, name }) => ({ uuid, name }));

/** Payouts to mobile money wallets (docs/integrate/api-reference.md#payouts-to-wallets) and through the banks list (docs/integrate/api-reference.md#bank-payouts), from the main balance. */
export function registerPayoutRoutes(app: App, { payments, config }: { payments: PaymentDeps; config: Config }): void {
  const normalize = normalizing(normalizeBody);

  app.post(
    '/mobile-money/payouts/initialize',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalize,
      schema: {
        operationId: 'createMobileMoneyPayout',
        summary: 'Pay out to a mobile money wallet',
        body: InitializePayoutBody,
        response: { 201: ChargeRecordResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const payout = await initializePayout(payments, principalOf(request), request.body);
      const message =
        payout.status === 'failed'
          ? `Payout failed: ${payout.failure_reason ?? 'the operator refused it'}.`
          : 'Payout processed successfully.';
      return reply.code(201).send(success(message, chargeRecord(payout)));
    },
  );

  app.get(
    '/direct-charge/payouts/supported-banks',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listPayoutBanks',
        summary: "Malawi's banks and the two wallets a payout can go to (kwacha only)",
        querystring: SupportedBanksQuery,
        response: { 200: SupportedBanksResponse, ...errorResponses },
      },
    },
    async () => success('Retrieved successfully.', SUPPORTED_BANKS),
  );

  app.post(
    '/direct-charge/payouts/initialize',
    {
      config: { startsNewWork: true, auth: 'secret' },
      preValidation: normalizing(normalizeBankPayoutBody),
      errorHandler: answerBankPayoutError,
      schema: {
        operationId: 'createBankPayout',
        summary: 'Pay out to a bank account or a wallet of the banks list; answers pending',
        body: InitializeBankPayoutBody,
        response: { 201: BankPayoutResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { payout, recipient } = await initializeBankPayout(payments, principalOf(request), request.body);
      const message =
        payout.status === 'failed'
          ? `Payout failed: ${payout.failure_reason ?? 'the provider refused it.'}`
          : 'Payout request submitted successfully.';
      return reply.code(201).send(success(message, { transaction: bankPayoutRecord(payout, recipient) }));
    },
  );

  app.get(
    '/direct-charge/payouts/:charge_id/details',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'getPayout',
        summary: 'A payout made through the banks list, with its logs',
        params: ChargeIdParams,
        response: { 200: BankPayoutDetailsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const payout = await bankPayoutDetails(payments, principalOf(request), request.params.charge_id);
      return {
        status: 'successful' as const,
        message: 'Transaction details retrieved successfully',
        data: bankPayoutDetailsRecord(payout, payout, payout.logs),
      };
    },
  );

  app.get(
    '/direct-charge/payouts',
    {
      config: { auth: 'secret' },
      schema: {
        operationId: 'listPayouts',
        summary: 'Payouts made through the banks list, newest first, 20 a page',
        querystring: BankPayoutListQuery,
        response: { 200: BankPayoutListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const page = Number(request.query.page ?? 1);
      const { rows, total } = await bankPayoutPage(payments, principalOf(request), page);
      return success(
        'Transactions retrieved successfully.',
        bankPayoutListPage(page, rows, total, config.publicBaseUrl),
      );
    },
  );
}

/** As every route answers, but a body's refusals read with the bank it names (a wallet's holder name). */
function answerBankPayoutError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const failure = error.validation
    ? new ApiError('validation', bankPayoutFieldErrors(error.validation, request.body))
    : toApiError(error, request.log);
  return sendError(reply, failure);
}
