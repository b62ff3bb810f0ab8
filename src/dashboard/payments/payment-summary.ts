import type { Charge } from '../../core/charge-repository.ts';
import { sessionOutcome } from '../../checkout/session-outcome.ts';
import type { RefundTarget } from '../../refunds/refund-service.ts';
import type { PaymentRecord } from './payment-detail-repository.ts';

/** A payment as its page shows it, whichever kind of record it is. */
export interface PaymentSummary {
  /** The id the page goes by: the session's, or the direct charge's own (whichever of its ids opened it). */
  id: string;
  kind: PaymentRecord['kind'];
  /** A session's by how it ended (`sessionOutcome`), a direct charge's as it is. */
  status: string;
  amountMinor: number;
  feeMinor: number;
  currency: string;
  /** The checkout session's `tx_ref`, or a direct payment's `charge_id`. */
  reference: string;
  /** The session's own reference, or a direct payment's `ref_id`. */
  serviceReference: string;
  customerName: string | null;
  email: string | null;
  /** The charge that paid, or the latest attempt: how the customer paid, or tried to. */
  method: Charge | undefined;
  createdAt: number;
  completedAt: number | null;
  /** The charge a refund would give back, once the payment succeeded. */
  paid: Charge | undefined;
  /** How the refund service names this payment. */
  refundTarget: RefundTarget;
  /** The records whose log lines are the payment's: the session and its attempts, or the charge. */
  logOwners: string[];
  attempts: Charge[];
}

export function summarize(record: PaymentRecord, maxFailedAttempts: number): PaymentSummary {
  if (record.kind === 'checkout') {
    const { session, attempts } = record;
    const paid = attempts.find((attempt) => attempt.id === session.paid_charge_id);
    return {
      id: session.id,
      kind: 'checkout',
      status: sessionOutcome(session, maxFailedAttempts),
      amountMinor: session.amount_minor,
      feeMinor: session.fee_minor,
      currency: session.currency,
      reference: session.tx_ref,
      serviceReference: session.reference,
      customerName: fullName(session.first_name, session.last_name),
      email: session.email,
      method: paid ?? attempts.at(-1),
      createdAt: session.created_at,
      completedAt: session.completed_at,
      paid,
      refundTarget: { txRef: session.tx_ref },
      logOwners: [session.id, ...attempts.map((attempt) => attempt.id)],
      attempts,
    };
  }
  const { charge } = record;
  return {
    id: charge.id,
    kind: 'direct',
    status: charge.status,
    amountMinor: charge.amount_minor,
    feeMinor: charge.fee_minor,
    currency: charge.currency,
    reference: charge.charge_id,
    serviceReference: charge.ref_id,
    customerName: fullName(charge.first_name, charge.last_name),
    email: charge.email,
    method: charge,
    createdAt: charge.created_at,
    completedAt: charge.completed_at,
    paid: charge.status === 'success' ? charge : undefined,
    refundTarget: { chargeId: charge.charge_id },
    logOwners: [charge.id],
    attempts: [charge],
  };
}

const fullName = (first: string | null, last: string | null) => [first, last].filter(Boolean).join(' ') || null;

const OPERATORS: Record<string, string> = { airtel: 'Airtel Money', tnm: 'TNM Mpamba' };

/** How a charge was paid, as people say it: a card by brand and last four digits only, never more of its number. */
export function methodOf(charge: Charge): string {
  if (charge.channel === 'card')
    return `${charge.card_brand ?? 'Card'} ending ${charge.card_number?.slice(-4) ?? '····'}`;
  if (charge.channel === 'mobile_money')
    return `${(charge.operator && OPERATORS[charge.operator]) ?? 'Mobile money'} ${charge.mobile ?? ''}`.trim();
  return 'Bank transfer';
}
