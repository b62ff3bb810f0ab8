import { creditCollection } from '../ledger/ledger-service.ts';
import { addLog } from '../logs/log-repository.ts';
import type { Principal } from '../merchants/merchant-service.ts';
import { ApiError } from '../shared/errors.ts';
import { ids } from '../shared/ids.ts';
import { recordPayer } from '../core/bank-transfer-repository.ts';
import { transferAuthorization } from './bank-transfer-views.ts';
import { emitChargeOutcome } from '../core/charge-events.ts';
import { discardUnstarted, finalizeCharge, findCharge, recordStarted, type Charge } from '../core/charge-repository.ts';
import { ANSWER_RECOVERY_MS, settlesAtOnce, type PaymentDeps } from '../core/payment-deps.ts';
import {
  existingFor,
  hashDirectRequest,
  insertDirectRecord,
  refuseOtherThanKwacha,
  walletOf,
  type DirectRequest,
} from '../core/direct-records.ts';
import { collectionFee } from '../core/fees.ts';
import type { Outcome } from '../connectors/provider.ts';

/**
 * A direct mobile money charge (docs/integrate/api-reference.md#mobile-money-charges): the customer approves on the phone, the outcome
 * arrives later. A retry of the same request answers the same pending charge. The operators take
 * MWK only, so `currency` may be left out or be `MWK`.
 *
 * The charge is recorded before its provider is asked, as a checkout attempt is: of concurrent
 * duplicates only the one that recorded it reaches the customer's phone, and a crash after asking
 * leaves a charge the settler asks about, never money taken without a record. A provider that
 * refuses at once moved no money, so the record goes and the refusal is the answer.
 */
export async function initializeCharge(deps: PaymentDeps, owner: Principal, request: DirectRequest): Promise<Charge> {
  const now = deps.clock.now();
  refuseOtherThanKwacha(
    request.currency,
    'The currency must be MWK: Airtel Money and TNM Mpamba take payments in MWK only.',
  );
  const hash = hashDirectRequest('payment', request);
  const existing = await existingFor(deps.db, owner, request, hash);
  if (existing) return existing;
  const wallet = walletOf(request);
  const recorded = await insertDirectRecord(
    deps,
    {
      id: ids.chargeRef(),
      owner,
      request,
      kind: 'payment',
      type: 'Direct API Payment',
      wallet,
      hash,
      feeMinor: 0,
      nextAction: 'approve',
      providerState: null,
      checkAt: now + ANSWER_RECOVERY_MS,
    },
    now,
  );
  if (!recorded.created) return recorded.charge;
  const { charge } = recorded;
  const started = await deps
    .providerFor(owner.mode)
    .startMobileMoney({ reference: charge.id, mobile: wallet, amountMinor: charge.amount_minor, currency: 'MWK' });
  if (started.status === 'refused') {
    await deps.transact((trx) => discardUnstarted(trx, charge.id));
    throw ApiError.field('mobile', started.reason);
  }
  return (
    (await recordStarted(deps.db, charge.id, started, deps.clock.now())) ??
    (await findCharge(deps.db, charge.id)) ??
    charge
  );
}

/**
 * Records how a direct charge ended, in one transaction: the charge, the merchant's collection
 * credit net of the fee (on success), its log and its `api.charge.payment` event (for a bank
 * transfer, with who paid, recorded beside its account).
 */
export async function completeDirectCharge(
  deps: PaymentDeps,
  charge: Charge,
  outcome: Outcome,
  now: number,
): Promise<Charge | null> {
  return deps.transact(async (trx) => {
    const fee = await collectionFee(trx, charge, outcome);
    const final = await finalizeCharge(trx, charge.id, outcome, fee, now);
    if (!final) return (await findCharge(trx, charge.id)) ?? null;
    await addLog(
      trx,
      final.id,
      outcome.status === 'success' ? 'Payment completed' : `Payment failed: ${outcome.reason}`,
      now,
    );
    if (final.channel !== 'bank_transfer') await emitChargeOutcome(trx, final, now, deps.timeZone);
    else
      await emitChargeOutcome(trx, final, now, deps.timeZone, {
        authorization: transferAuthorization(final, await recordPayer(trx, final.id, outcome)),
      });
    // Last: the balances it moves are rows every payment updates, locked until the commit.
    if (outcome.status === 'success') {
      await creditCollection(
        trx,
        {
          merchantId: final.merchant_id,
          mode: final.mode,
          currency: final.currency,
          amountMinor: final.amount_minor,
          feeMinor: fee,
          reference: final.id,
        },
        now,
        { settledAtOnce: settlesAtOnce(deps, final.mode) },
      );
    }
    return final;
  });
}
