import type { Charge } from './charge-repository.ts';
import type { Outcome } from '../connectors/provider.ts';

/** How long a bank transfer charge's one-time account takes transfers (docs/integrate/api-reference.md#bank-transfer-charges). */
export const BANK_TRANSFER_TTL_MS = 60 * 60 * 1000;

export const EXPIRED_REASON = 'The account expired before a transfer arrived.';

/** When a bank transfer charge's account expires: an hour after the charge was made, so that no read needs its account row. */
export function transferExpiresAt(charge: Pick<Charge, 'created_at'>): number {
  return charge.created_at + BANK_TRANSFER_TTL_MS;
}

/**
 * A pending bank transfer charge whose account has expired without its provider reporting a
 * transfer has failed; ours to decide, whatever the provider says, so that the settler ends it.
 */
export function expiredOutcome(charge: Charge, now: number): Outcome | null {
  if (charge.channel !== 'bank_transfer' || now < transferExpiresAt(charge)) return null;
  return { status: 'failed', reason: EXPIRED_REASON, code: 'expired' };
}
