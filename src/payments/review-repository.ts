import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** A live charge, payout or refund still pending that its operator has left without a final answer for too long. */
export interface InReview {
  kind: 'payment' | 'payout' | 'refund';
  /** The merchant's reference: a charge's or payout's `charge_id`, a refund's `refund_id`. */
  reference: string;
  merchant_id: string;
  amount_minor: number;
  currency: string;
  review_reason: string;
  created_at: number;
  /** When it was last asked about or flagged. */
  updated_at: number;
}

/** What needs a person now, oldest first (flagged rows that have since ended are history, not work). */
export async function listInReview(db: Kysely<DB>): Promise<InReview[]> {
  const [charges, refunds] = await Promise.all([
    db
      .selectFrom('charges')
      .select([
        'kind',
        'charge_id as reference',
        'merchant_id',
        'amount_minor',
        'currency',
        'review_reason',
        'created_at',
        'updated_at',
      ])
      .where('review_reason', 'is not', null)
      .where('status', '=', 'pending')
      .execute(),
    db
      .selectFrom('refunds')
      .select([
        'refund_id as reference',
        'merchant_id',
        'amount_minor',
        'currency',
        'review_reason',
        'created_at',
        'updated_at',
      ])
      .where('review_reason', 'is not', null)
      .where('status', '=', 'pending')
      .execute(),
  ]);
  const rows = [...charges, ...refunds.map((refund) => ({ ...refund, kind: 'refund' as const }))];
  return rows
    .map((row) => ({ ...row, review_reason: row.review_reason ?? '' }))
    .sort((a, b) => a.created_at - b.created_at);
}
