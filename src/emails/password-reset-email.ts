import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { composeAccountEmail } from './account-email.ts';
import type { ComposedEmail } from './receipt-email.ts';
import { queueAccountEmail } from './set-password-email.ts';

export interface PasswordReset {
  recipient: string;
  /** Null for a gateway operator. */
  merchantId: string | null;
  /** Whose dashboard the account opens: the merchant's name, or the gateway's. */
  accountOf: string;
  link: string;
  validMinutes: number;
}

export function composePasswordResetEmail({ accountOf, link, validMinutes }: PasswordReset): ComposedEmail {
  return composeAccountEmail({
    subject: `Reset your password for the ${accountOf} dashboard`,
    intro: `Someone asked for a new password for this address's account on the ${accountOf} payments dashboard. Choose a new password with this link, within ${validMinutes} minutes; it works once, and signs the account out of every browser. Two-factor sign-in, if it is on, stays on.`,
    link: { href: link, label: 'Choose a new password' },
    closing: 'If it was not you, ignore this message: your password stays as it is until the link is used.',
  });
}

/** Queues the link in the email outbox, in the caller's transaction. */
export async function queuePasswordResetEmail(trx: Kysely<DB>, reset: PasswordReset, now: number): Promise<void> {
  await queueAccountEmail(
    trx,
    {
      recipient: reset.recipient,
      merchantId: reset.merchantId,
      kind: 'password_reset',
      email: composePasswordResetEmail(reset),
    },
    now,
  );
}
