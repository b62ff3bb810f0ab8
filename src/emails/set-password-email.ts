import type { Kysely } from 'kysely';
import type { AccountEmailKind, DB } from '../db/schema.ts';
import { ids } from '../shared/ids.ts';
import { composeAccountEmail } from './account-email.ts';
import { insertEmails } from './email-repository.ts';
import type { ComposedEmail } from './receipt-email.ts';

export interface SetPasswordInvite {
  recipient: string;
  /** Null for a gateway operator. */
  merchantId: string | null;
  /** Whose dashboard the account opens: the merchant's name, or the gateway's. */
  accountOf: string;
  link: string;
  validHours: number;
}

export function composeSetPasswordEmail({ accountOf, link, validHours }: SetPasswordInvite): ComposedEmail {
  return composeAccountEmail({
    subject: `Set your password for the ${accountOf} dashboard`,
    intro: `This address is invited to the ${accountOf} payments dashboard. Choose your password with this link, within ${validHours} hours; it works once.`,
    link: { href: link, label: 'Set your password' },
    closing: 'If you did not expect this, ignore this message: nothing happens until the link is used.',
  });
}

/**
 * Queues the link in the email outbox, in the caller's transaction: the worker of `lipira serve`
 * sends it (SMTP, or an .eml file in OUTBOX_DIR) with the receipts' retries.
 */
export async function queueSetPasswordEmail(trx: Kysely<DB>, invite: SetPasswordInvite, now: number): Promise<void> {
  await queueAccountEmail(
    trx,
    {
      recipient: invite.recipient,
      merchantId: invite.merchantId,
      kind: 'set_password',
      email: composeSetPasswordEmail(invite),
    },
    now,
  );
}

/** An email about a dashboard account, which no event causes: queued in the caller's transaction. */
export async function queueAccountEmail(
  trx: Kysely<DB>,
  account: { recipient: string; merchantId: string | null; kind: AccountEmailKind; email: ComposedEmail },
  now: number,
): Promise<void> {
  const { subject, text, html } = account.email;
  await insertEmails(trx, [
    {
      id: ids.email(),
      event_id: null,
      merchant_id: account.merchantId,
      kind: account.kind,
      recipient: account.recipient,
      subject,
      text_body: text,
      html_body: html,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      locked_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    },
  ]);
}
