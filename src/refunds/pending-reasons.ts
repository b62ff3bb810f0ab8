import { formatNullableTimestamp, formatTimestamp } from '../shared/time.ts';

/**
 * Why a refund waited for its balance, and when: one entry per reason, `until` null while it still
 * waits for it. Kept on the refund as JSON (`pending_reasons`) and sent with its webhook.
 */
interface PendingReason {
  reason: string;
  since: number;
  until: number | null;
}

const parse = (json: string | null): PendingReason[] => (json === null ? [] : (JSON.parse(json) as PendingReason[]));

const closeAll = (reasons: PendingReason[], now: number) =>
  reasons.map((entry) => (entry.until === null ? { ...entry, until: now } : entry));

/** The reasons, the current one ended at `now` and `reason` begun. */
export const withReason = (json: string | null, reason: string, now: number): string =>
  JSON.stringify([...closeAll(parse(json), now), { reason, since: now, until: null }]);

/** The reasons, the current one ended at `now`: the refund no longer waits. */
export const closedReasons = (json: string | null, now: number): string => JSON.stringify(closeAll(parse(json), now));

/** The reasons as merchants read them (the `api.refund` webhook): times as the API writes them. */
export const pendingReasonsView = (json: string | null) =>
  parse(json).map((entry) => ({
    reason: entry.reason,
    since: formatTimestamp(entry.since),
    until: formatNullableTimestamp(entry.until),
  }));
