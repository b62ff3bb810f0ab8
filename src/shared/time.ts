/** Wire timestamps: ISO 8601 UTC with six fractional digits, as Laravel/Carbon prints them. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('Z', '000Z');
}

export function formatNullableTimestamp(epochMs: number | null): string | null {
  return epochMs === null ? null : formatTimestamp(epochMs);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `24h`, `7d`, `250ms` or `0`; null when unreadable. */
export function parseDuration(text: string): number | null {
  if (text === '0') return 0;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

const humanDate = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** For people (receipts, pages): `21 November 2026 at 14:33 UTC`. */
export function formatHumanDate(epochMs: number): string {
  return `${humanDate.format(epochMs)} UTC`;
}
