import { Migrator, type Migration } from 'kysely';
import { openDatabase, type Database, type DatabaseLimits } from './database.ts';
import { coreMigration } from './migrations/0001_core.ts';
import { paymentsMigration } from './migrations/0002_payments.ts';
import { deliveriesMigration } from './migrations/0003_deliveries.ts';
import { ledgerMigration } from './migrations/0004_ledger.ts';
import { sessionStatusIndexMigration } from './migrations/0005_session_status_index.ts';
import { attemptSlotAndRefundsMigration } from './migrations/0007_attempt_slot_and_refunds.ts';
import { failureCodeMigration } from './migrations/0008_failure_code.ts';
import { refundTotalsMigration } from './migrations/0009_refund_totals.ts';
import { payoutRecipientsMigration } from './migrations/0010_payout_recipients.ts';
import { cardAuthenticationsMigration } from './migrations/0012_card_authentications.ts';
import { sessionFrameOriginMigration } from './migrations/0013_session_frame_origin.ts';
import { reviewFlagsMigration } from './migrations/0014_review_flags.ts';
import { usersMigration } from './migrations/0015_users.ts';
import { dashboardPaymentIndexesMigration } from './migrations/0016_dashboard_payment_indexes.ts';
import { merchantBrandingMigration } from './migrations/0017_merchant_branding.ts';
import { workNoticesMigration } from './migrations/0018_work_notices.ts';
import { callbackAsksMigration } from './migrations/0019_callback_asks.ts';
import { teamInvitationsMigration } from './migrations/0020_team_invitations.ts';
import { bankTransferAccountsMigration } from './migrations/0011_bank_transfer_accounts.ts';

function migrationsFor(database: Database): Record<string, Migration> {
  return {
    '0001_core': coreMigration(database.dialect),
    '0002_payments': paymentsMigration,
    '0003_deliveries': deliveriesMigration(database.dialect),
    '0004_ledger': ledgerMigration(database.dialect),
    '0005_session_status_index': sessionStatusIndexMigration,
    '0007_attempt_slot_and_refunds': attemptSlotAndRefundsMigration,
    '0008_failure_code': failureCodeMigration,
    '0009_refund_totals': refundTotalsMigration,
    '0010_payout_recipients': payoutRecipientsMigration,
    '0012_card_authentications': cardAuthenticationsMigration,
    '0013_session_frame_origin': sessionFrameOriginMigration,
    '0014_review_flags': reviewFlagsMigration,
    '0011_bank_transfer_accounts': bankTransferAccountsMigration,
    '0015_users': usersMigration(database.dialect),
    '0016_dashboard_payment_indexes': dashboardPaymentIndexesMigration,
    '0017_merchant_branding': merchantBrandingMigration,
    '0018_work_notices': workNoticesMigration(database.dialect),
    '0019_callback_asks': callbackAsksMigration,
    '0020_team_invitations': teamInvitationsMigration,
  };
}

function migratorFor(database: Database): Migrator {
  return new Migrator({ db: database.db, provider: { getMigrations: async () => migrationsFor(database) } });
}

/** Applies every pending migration; concurrent callers on PostgreSQL wait on Kysely's lock. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = migratorFor(database);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Opens the database a URL names and brings it to the latest migration (within `limits`, if any). */
export async function openMigratedDatabase(url: string, limits?: DatabaseLimits): Promise<Database> {
  const database = await openDatabase(url, limits);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** True when the database has every migration this build knows (readiness). */
export async function migrationsAreCurrent(database: Database): Promise<boolean> {
  return (await migratorFor(database).getMigrations()).every((migration) => migration.executedAt !== undefined);
}
