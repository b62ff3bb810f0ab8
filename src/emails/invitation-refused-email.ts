import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { composeAccountEmail } from './account-email.ts';
import type { ComposedEmail } from './receipt-email.ts';
import { queueAccountEmail } from './set-password-email.ts';

/** Whose team tried to invite an address that already has an account elsewhere on the gateway. */
export interface RefusedInvitation {
  recipient: string;
  /** The inviting merchant. */
  merchantId: string;
  merchantName: string;
}

/**
 * Tells the address's owner, and only them, why the invitation they may be waiting for will not
 * come: the inviter is told nothing the address's owner would not tell them.
 */
export function composeInvitationRefusedEmail({ merchantName }: RefusedInvitation): ComposedEmail {
  return composeAccountEmail({
    subject: `An invitation to the ${merchantName} dashboard could not be made`,
    intro: `Someone on the ${merchantName} team tried to invite this address to their payments dashboard, but this address already has a dashboard account on this gateway, and an address can have only one. Nothing was changed.`,
    closing: `If you want to join the ${merchantName} team, ask them to invite another address of yours. If you did not expect this, ignore this message.`,
  });
}

/** Queues the notice in the email outbox, in the caller's transaction. */
export async function queueInvitationRefusedEmail(
  trx: Kysely<DB>,
  invitation: RefusedInvitation,
  now: number,
): Promise<void> {
  await queueAccountEmail(
    trx,
    {
      recipient: invitation.recipient,
      merchantId: invitation.merchantId,
      kind: 'invitation_refused',
      email: composeInvitationRefusedEmail(invitation),
    },
    now,
  );
}
