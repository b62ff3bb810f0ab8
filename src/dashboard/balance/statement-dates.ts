/**
 * The statement's date filter: a calendar day (`2026-11-25`, as a date input sends it) is a day in
 * the gateway's TIMEZONE, the zone every page shows times in, not in UTC.
 */
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** How far the zone's wall clock is ahead of UTC at `epochMs`. */
function zoneOffsetMs(epochMs: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    offsetFormats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(epochMs).map(({ type, value }) => [type, Number(value)]));
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/** When `date` (YYYY-MM-DD) began in `timeZone`, as epoch ms; null when it is not a date. */
export function startOfDay(date: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  const midnightUtc = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (new Date(midnightUtc).toISOString().slice(0, 10) !== date) return null;
  // Twice: the offset at the guessed instant may differ from the offset at the day's start (a clock change).
  const guess = midnightUtc - zoneOffsetMs(midnightUtc, timeZone);
  return midnightUtc - zoneOffsetMs(guess, timeZone);
}

/** The day after `date` began: an inclusive "to" day is the exclusive start of the next. */
export function startOfNextDay(date: string, timeZone: string): number | null {
  const start = startOfDay(date, timeZone);
  if (start === null) return null;
  const next = new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)) + 1)).toISOString().slice(0, 10);
  return startOfDay(next, timeZone);
}
