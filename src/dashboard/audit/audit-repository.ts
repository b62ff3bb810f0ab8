import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface AuditRow {
  id: string;
  action: string;
  subject: string;
  detail: string | null;
  created_at: number;
  /** Who made the change; null from the command line. */
  user_email: string | null;
}

/** Where a page of the log starts: strictly older than this entry. */
export interface AuditCursor {
  createdAt: number;
  id: string;
}

/**
 * A merchant's audit entries newest first, from `after` on: keyset pages, so a page costs the
 * same however deep into the log it is, and entries written meanwhile do not shift the pages.
 */
export function listAuditEntries(
  db: Kysely<DB>,
  merchantId: string,
  after: AuditCursor | null,
  limit: number,
): Promise<AuditRow[]> {
  let query = db
    .selectFrom('audit_log')
    .leftJoin('users', 'users.id', 'audit_log.user_id')
    .select([
      'audit_log.id',
      'audit_log.action',
      'audit_log.subject',
      'audit_log.detail',
      'audit_log.created_at',
      'users.email as user_email',
    ])
    .where('audit_log.merchant_id', '=', merchantId);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('audit_log.created_at', '<', after.createdAt),
        eb.and([eb('audit_log.created_at', '=', after.createdAt), eb('audit_log.id', '<', after.id)]),
      ]),
    );
  }
  return query.orderBy('audit_log.created_at', 'desc').orderBy('audit_log.id', 'desc').limit(limit).execute();
}
