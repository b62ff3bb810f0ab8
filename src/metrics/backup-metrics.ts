import type { Registry } from 'prom-client';
import { backupAgeSeconds, type BackupStatus } from '../operations/backup-schedule.ts';
import { registerAtScrape } from './scrape-time-metric.ts';

/**
 * `lipira_backup_age_seconds`: how old the last good scheduled backup is, +Inf while there is
 * none, so that one alert (`> 2 × BACKUP_INTERVAL`) covers a schedule failing from its start as
 * well as one that stopped. No series when the gateway keeps no backups (BACKUP_DIR unset).
 * Read from the lifecycle when scraped: the schedule starts once the gateway listens.
 */
export function registerBackupAge(registry: Registry, lifecycle: { backups: BackupStatus | null }): void {
  registerAtScrape(
    registry,
    'lipira_backup_age_seconds',
    'gauge',
    "Seconds since the gateway's last good backup into BACKUP_DIR (+Inf while it has none).",
    () => (lifecycle.backups ? [{ labels: {}, value: backupAgeSeconds(lifecycle.backups, Date.now()) }] : []),
  );
}
