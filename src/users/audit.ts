import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ids } from '../shared/ids.ts';
import { insertAuditEntry } from './user-repository.ts';

/** Everything that changes money, secrets or users is one of these. */
export type AuditAction =
  | 'user.create'
  | 'user.password_set'
  | 'user.password_reset_request'
  | 'user.password_reset'
  | 'user.two_factor_on'
  | 'user.two_factor_off'
  | 'user.recovery_codes_new'
  | 'user.recovery_code_used'
  | 'user.signed_out_everywhere'
  | 'user.locked'
  | 'user.role_change'
  | 'user.remove'
  | 'user.invite'
  | 'user.invitation_cancel'
  | 'user.invitation_accept'
  | 'user.two_factor_reset'
  | 'user.password_reset_by_other'
  | 'user.disable'
  | 'user.enable'
  | 'refund.create'
  | 'payout.create'
  | 'payout.automatic'
  | 'payout_schedule.save'
  | 'payout_schedule.stop'
  | 'payment_link.create'
  | 'payment_link.change'
  | 'key.roll'
  | 'webhook.url_change'
  | 'webhook.secret_roll'
  | 'webhook.test_event'
  | 'webhook.retry'
  | 'merchant.create'
  | 'merchant.fees'
  | 'merchant.settings'
  | 'operator.act_for';

export interface AuditEntry {
  merchantId: string | null;
  /** Who did it; null from the command line, or for an automatic payout's run. */
  userId: string | null;
  action: AuditAction;
  subject: string;
  /** Shown to whoever reads the log: never a secret. */
  detail?: Record<string, unknown>;
}

/** Writes one entry, in the caller's transaction: the log holds a change exactly when the change was made. */
export async function recordAudit(trx: Kysely<DB>, entry: AuditEntry, now: number): Promise<void> {
  await insertAuditEntry(trx, {
    id: ids.auditEntry(),
    merchant_id: entry.merchantId,
    user_id: entry.userId,
    action: entry.action,
    subject: entry.subject,
    detail: entry.detail ? JSON.stringify(entry.detail) : null,
    created_at: now,
  });
}
