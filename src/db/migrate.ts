import { Migrator, type Migration } from 'kysely';
import { openDatabase, type Database, type DatabaseLimits, type Dialect } from './database.ts';
import { inNumberOrder } from './migration-order.ts';
import { coreMigration } from './migrations/0001_core.ts';
import { paymentsMigration } from './migrations/0002_payments.ts';
import { deliveriesMigration } from './migrations/0003_deliveries.ts';
import { ledgerMigration } from './migrations/0004_ledger.ts';
import { sessionStatusIndexMigration } from './migrations/0005_session_status_index.ts';
import { attemptSlotAndRefundsMigration } from './migrations/0007_attempt_slot_and_refunds.ts';
import { failureCodeMigration } from './migrations/0008_failure_code.ts';
import { refundTotalsMigration } from './migrations/0009_refund_totals.ts';
import { payoutRecipientsMigration } from './migrations/0010_payout_recipients.ts';
import { bankTransferAccountsMigration } from './migrations/0011_bank_transfer_accounts.ts';
import { cardAuthenticationsMigration } from './migrations/0012_card_authentications.ts';
import { sessionFrameOriginMigration } from './migrations/0013_session_frame_origin.ts';
import { reviewFlagsMigration } from './migrations/0014_review_flags.ts';
import { usersMigration } from './migrations/0015_users.ts';
import { dashboardPaymentIndexesMigration } from './migrations/0016_dashboard_payment_indexes.ts';
import { merchantBrandingMigration } from './migrations/0017_merchant_branding.ts';
import { workNoticesMigration } from './migrations/0018_work_notices.ts';
import { callbackAsksMigration } from './migrations/0019_callback_asks.ts';
import { teamInvitationsMigration } from './migrations/0020_team_invitations.ts';
import { accountRecoveryMigration } from './migrations/0021_account_recovery.ts';
import { accountSafetyMigration } from './migrations/0022_account_safety.ts';
import { eventLogMigration } from './migrations/0028_event_log.ts';
import { webhookSecretsPerModeMigration } from './migrations/0023_webhook_secrets_per_mode.ts';
import { refundFeeAndWaitsMigration } from './migrations/0024_refund_fee_and_waits.ts';
import { paymentSearchMigration } from './migrations/0025_payment_search.ts';
import { refundOperatorIdsAndPayoutSchedulesMigration } from './migrations/0026_refund_operator_ids_and_payout_schedules.ts';
import { paymentLinksMigration } from './migrations/0027_payment_links.ts';

/**
 * Every migration under the name existing databases record it by, ordered by the number in that
 * name; a skipped or repeated number stops the start (src/db/migration-order.ts).
 */
const MIGRATIONS = inNumberOrder<{ name: string; of: (dialect: Dialect) => Migration }>([
  { name: '0001_core', of: coreMigration },
  { name: '0002_payments', of: () => paymentsMigration },
  { name: '0003_deliveries', of: deliveriesMigration },
  { name: '0004_ledger', of: ledgerMigration },
  { name: '0005_session_status_index', of: () => sessionStatusIndexMigration },
  { name: '0007_attempt_slot_and_refunds', of: () => attemptSlotAndRefundsMigration },
  { name: '0008_failure_code', of: () => failureCodeMigration },
  { name: '0009_refund_totals', of: () => refundTotalsMigration },
  { name: '0010_payout_recipients', of: () => payoutRecipientsMigration },
  { name: '0011_bank_transfer_accounts', of: () => bankTransferAccountsMigration },
  { name: '0012_card_authentications', of: () => cardAuthenticationsMigration },
  { name: '0013_session_frame_origin', of: () => sessionFrameOriginMigration },
  { name: '0014_review_flags', of: () => reviewFlagsMigration },
  { name: '0015_users', of: usersMigration },
  { name: '0016_dashboard_payment_indexes', of: () => dashboardPaymentIndexesMigration },
  { name: '0017_merchant_branding', of: () => merchantBrandingMigration },
  { name: '0018_work_notices', of: workNoticesMigration },
  { name: '0019_callback_asks', of: () => callbackAsksMigration },
  { name: '0020_team_invitations', of: () => teamInvitationsMigration },
  { name: '0021_account_recovery', of: () => accountRecoveryMigration },
  { name: '0022_account_safety', of: () => accountSafetyMigration },
  { name: '0023_webhook_secrets_per_mode', of: () => webhookSecretsPerModeMigration },
  { name: '0024_refund_fee_and_waits', of: () => refundFeeAndWaitsMigration },
  { name: '0025_payment_search', of: paymentSearchMigration },
  { name: '0026_refund_operator_ids_and_payout_schedules', of: () => refundOperatorIdsAndPayoutSchedulesMigration },
  { name: '0027_payment_links', of: () => paymentLinksMigration },
  { name: '0028_event_log', of: eventLogMigration },
]);

/** The migrations' names, first to last. */
export const migrationNames = (): string[] => MIGRATIONS.map(({ name }) => name);

function migrationsFor(database: Database): Record<string, Migration> {
  return Object.fromEntries(MIGRATIONS.map(({ name, of }) => [name, of(database.dialect)]));
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

/** Applies the migrations up to `name` and no further: for tests that upgrade a database holding older rows. */
export async function migrateTo(database: Database, name: string): Promise<void> {
  const { error } = await migratorFor(database).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
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
