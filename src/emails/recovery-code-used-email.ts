import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { composeAccountEmail } from './account-email.ts';
import type { ComposedEmail } from './receipt-email.ts';
import { queueAccountEmail } from './set-password-email.ts';

export interface RecoveryCodeUse {
  recipient: string;
  /** Null for a gateway operator. */
  merchantId: string | null;
  /** Whose dashboard the account opens: the merchant's name, or the gateway's. */
  accountOf: string;
  /** Recovery codes the account has left. */
  left: number;
  /** The two-factor page, where new codes are made. */
  twoFactorPage: string;
}

const codesLeft = (left: number) => (left === 1 ? '1 recovery code is left' : `${left} recovery codes are left`);

/**
 * Tells the account's owner a recovery code was used in place of their authenticator's code: the
 * one message that can warn them when someone else holds their password and their codes.
 */
export function composeRecoveryCodeUsedEmail({ accountOf, left, twoFactorPage }: RecoveryCodeUse): ComposedEmail {
  return composeAccountEmail({
    subject: `A recovery code was used to sign in to the ${accountOf} dashboard`,
    intro: `Someone signed in to this address's account on the ${accountOf} payments dashboard with a recovery code instead of a code from the authenticator app. That code no longer works; ${codesLeft(left)}. Make new ones on the two-factor page when few are left.`,
    link: { href: twoFactorPage, label: 'Two-factor sign-in' },
    closing:
      'If it was not you, someone knows your password and holds your recovery codes: choose a new password with "Forgot your password?" on the sign-in page (it signs out every browser), then make new recovery codes.',
  });
}

/** Queues the notice in the email outbox, in the caller's transaction. */
export async function queueRecoveryCodeUsedEmail(trx: Kysely<DB>, use: RecoveryCodeUse, now: number): Promise<void> {
  await queueAccountEmail(
    trx,
    {
      recipient: use.recipient,
      merchantId: use.merchantId,
      kind: 'recovery_code_used',
      email: composeRecoveryCodeUsedEmail(use),
    },
    now,
  );
}
