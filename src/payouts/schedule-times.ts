import { zoneDateOf, zoneTimeOn } from '../shared/zone-days.ts';

/**
 * Automatic payouts run at 08:00 in the gateway's TIMEZONE: in business hours, when banks and
 * operators work, so that a payout that needs looking at is seen the same day.
 */
export const RUN_TIME_MINUTES = 8 * 60;

/** How often a schedule runs: every day, or on one ISO weekday (1 Monday … 7 Sunday). */
export type Cadence = { frequency: 'daily'; weekday: null } | { frequency: 'weekly'; weekday: number };

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** The first run of `cadence` strictly after `after`: today's, if its time has not come, else the next day that is one. */
export function nextRunAfter(cadence: Cadence, after: number, timeZone: string): number {
  const today = zoneDateOf(after, timeZone);
  for (let days = 0; days <= 7; days++) {
    const weekday = ((today.weekday - 1 + days) % 7) + 1;
    if (cadence.frequency === 'weekly' && weekday !== cadence.weekday) continue;
    const at = zoneTimeOn(today.date, days, RUN_TIME_MINUTES, timeZone);
    if (at > after) return at;
  }
  throw new Error(`no run of ${JSON.stringify(cadence)} within a week of ${after}`);
}

/** The local date a run was due on, as `20261207`: with the schedule's id, the `charge_id` that makes each run's payout once. */
export const runDay = (runAt: number, timeZone: string): string => zoneDateOf(runAt, timeZone).date.replaceAll('-', '');

/** How a cadence reads on a page: `Every day` or `Every Monday`. */
export const cadenceText = (cadence: Cadence): string =>
  cadence.frequency === 'daily' ? 'Every day' : `Every ${WEEKDAYS[cadence.weekday - 1] ?? '?'}`;
