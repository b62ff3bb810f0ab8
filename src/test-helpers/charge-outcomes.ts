import { randomUUID } from 'node:crypto';
import type { FailureCode, Outcome } from '../connectors/provider.ts';
import { SANDBOX_PAYER, wrongTransferAmount } from '../connectors/sandbox/sandbox-provider.ts';
import { transferExpiresAt } from '../core/bank-transfer-expiry.ts';
import { completeCharge } from '../core/charge-completion.ts';
import { findCharge, findChargeByChargeId, type Charge } from '../core/charge-repository.ts';
import { REFERENCE_PATTERN } from '../core/charge-schemas.ts';
import type { PaymentDeps } from '../core/payment-deps.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';

/** What the complete helper is asked for: how the customer (or issuer) answered. */
export interface RequestedOutcome {
  status: 'success' | 'failed';
  failure_code?: FailureCode | undefined;
}

/**
 * Ends a pending payment as its customer's answer would: the approval on the phone, the issuer's
 * answer to a card's 3-D Secure, the transfer into a bank transfer's account. The outcome goes
 * through `completeCharge`, the one door the settler, an operator's callback and a test key's
 * `transaction_status` all end a charge through, so the ledger, the event, its webhook and the
 * receipt are written as they would be, in one transaction. A charge ends once: of concurrent
 * calls only one records the outcome (the others answer the charge as it ended).
 */
export async function completePayment(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
  requested: RequestedOutcome,
): Promise<Charge> {
  if (requested.status === 'success' && requested.failure_code !== undefined)
    throw ApiError.field('failure_code', 'The failure code goes with status failed only.');
  const charge = await pendingPayment(deps, owner, chargeId);
  const outcome: Outcome =
    requested.status === 'success'
      ? successOf(charge)
      : { status: 'failed', reason: failureReason(requested.failure_code), code: requested.failure_code };
  return endWith(deps, charge, outcome);
}

/**
 * A transfer of `amount` (whole kwacha) arrives in a pending bank transfer charge's account: the
 * exact amount pays it, any other goes back to the payer and fails it, as a real transfer's
 * arrival does (the sandbox's `wrongTransferAmount`). An account past its hour takes nothing.
 */
export async function receiveTransfer(
  deps: PaymentDeps,
  owner: Principal,
  chargeId: string,
  amount: number,
): Promise<Charge> {
  const charge = await pendingPayment(deps, owner, chargeId);
  if (charge.channel !== 'bank_transfer')
    throw ApiError.field('charge_id', `This payment is by ${channelName(charge)}, not by bank transfer.`);
  if (deps.clock.now() >= transferExpiresAt(charge))
    throw new ApiError('wrongState', 'The account expired before the transfer arrived: it takes no more transfers.');
  const arrivedMinor = amount * 100;
  const outcome: Outcome =
    arrivedMinor === charge.amount_minor
      ? successOf(charge)
      : { status: 'failed', ...wrongTransferAmount(charge.amount_minor, arrivedMinor) };
  return endWith(deps, charge, outcome);
}

/** The merchant's payment by `charge_id` in the key's mode, still waiting for its outcome. */
async function pendingPayment(deps: PaymentDeps, owner: Principal, chargeId: string): Promise<Charge> {
  const charge = REFERENCE_PATTERN.test(chargeId) ? await findChargeByChargeId(deps.db, owner, chargeId) : undefined;
  if (!charge) throw new ApiError('transactionNotFound');
  if (charge.kind !== 'payment') throw ApiError.field('charge_id', 'This is a payout: test helpers end payments only.');
  if (charge.status !== 'pending') throw alreadyEnded(charge);
  return charge;
}

async function endWith(deps: PaymentDeps, charge: Charge, outcome: Outcome): Promise<Charge> {
  const ended =
    (await completeCharge(deps, charge, outcome, deps.clock.now())) ?? (await findCharge(deps.db, charge.id));
  // Someone else (the settler, a verification, a concurrent helper) ended it the other way first.
  if (!ended || ended.status !== outcome.status) throw alreadyEnded(ended ?? charge);
  return ended;
}

const alreadyEnded = (charge: Charge) =>
  new ApiError('wrongState', `This payment has already ended (${charge.status}): only a pending payment can be ended.`);

/** A bank transfer's success says who paid, as the sandbox's transfers do. */
const successOf = (charge: Charge): Outcome =>
  charge.channel === 'bank_transfer'
    ? { status: 'success', transId: randomUUID(), payer: SANDBOX_PAYER }
    : { status: 'success', transId: randomUUID() };

const failureReason = (code: FailureCode | undefined) =>
  `The payment failed (test helper${code === undefined ? '' : `, ${code}`}).`;

const channelName = (charge: Charge) =>
  charge.channel === 'mobile_money' ? 'mobile money' : charge.channel === 'card' ? 'card' : charge.channel;
