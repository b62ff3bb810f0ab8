/**
 * Calendar days as people in the gateway's TIMEZONE live them: "today" and "the last 30 days"
 * start at local midnight, whatever the server's own zone, and a day is 23 or 25 hours long
 * across a daylight-saving change.
 */
export interface ZoneDay {
  /** `YYYY-MM-DD`, the local date. */
  date: string;
  /** The epoch milliseconds of its local midnight. */
  start: number;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

function dateFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** The local wall clock at `epochMs`, read as if it were UTC: its difference to `epochMs` is the zone's offset then. */
function wallClock(epochMs: number, timeZone: string): number {
  const parts = Object.fromEntries(
    dateFormat(timeZone)
      .formatToParts(epochMs)
      .map((part) => [part.type, part.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

/** The instant the local wall clock reads `wallAsUtc` (a local time read as UTC): a day's midnight, or any time of it. */
function zoneInstant(wallAsUtc: number, timeZone: string): number {
  // The offset at the guess, then at the corrected guess: right on both sides of a DST change.
  const guess = wallAsUtc - (wallClock(wallAsUtc, timeZone) - wallAsUtc);
  return wallAsUtc - (wallClock(guess, timeZone) - guess);
}

/** The local midnight starting the day `daysBack` days before the one holding `epochMs`. */
function localMidnight(epochMs: number, daysBack: number, timeZone: string): ZoneDay {
  const wall = new Date(wallClock(epochMs, timeZone));
  const midnightAsUtc = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() - daysBack);
  return { date: new Date(midnightAsUtc).toISOString().slice(0, 10), start: zoneInstant(midnightAsUtc, timeZone) };
}

/**
 * When a calendar day (`YYYY-MM-DD`, as a date input sends it) began in `timeZone`; null when it
 * is no date (`2026-02-30`, junk).
 */
export function startOfDay(date: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  const midnightAsUtc = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (new Date(midnightAsUtc).toISOString().slice(0, 10) !== date) return null;
  return zoneInstant(midnightAsUtc, timeZone);
}

/** When the day after `date` began: an inclusive "to" day is the exclusive start of the next. */
export function startOfNextDay(date: string, timeZone: string): number | null {
  if (startOfDay(date, timeZone) === null) return null;
  const next = new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)) + 1))
    .toISOString()
    .slice(0, 10);
  return startOfDay(next, timeZone);
}

/** The last `count` local days up to and including today, oldest first. */
export function lastDays(now: number, count: number, timeZone: string): ZoneDay[] {
  return Array.from({ length: count }, (_, index) => localMidnight(now, count - 1 - index, timeZone));
}

/** `2026-11-25 16:33:05`: the wall clock in `timeZone` at `epochMs`, as a spreadsheet reads a date and time. */
export function localDateTime(epochMs: number, timeZone: string): string {
  return new Date(wallClock(epochMs, timeZone)).toISOString().slice(0, 19).replace('T', ' ');
}

/** A calendar month (`YYYY-MM`) in `timeZone`: when it began and when the next did; null when it is no month. */
export function monthRange(month: string, timeZone: string): { start: number; end: number } | null {
  const match = /^(\d{4})-(\d{2})$/.exec(month);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) return null;
  const next = new Date(Date.UTC(Number(match[1]), Number(match[2]), 1)).toISOString().slice(0, 7);
  return { start: startOfDay(`${month}-01`, timeZone)!, end: startOfDay(`${next}-01`, timeZone)! };
}

/** The month (`YYYY-MM`) holding `epochMs` in `timeZone`. */
export function monthOf(epochMs: number, timeZone: string): string {
  return localMidnight(epochMs, 0, timeZone).date.slice(0, 7);
}

/** The local date (`YYYY-MM-DD`) at `epochMs`, and its ISO weekday (1 Monday … 7 Sunday). */
export function zoneDateOf(epochMs: number, timeZone: string): { date: string; weekday: number } {
  const wall = new Date(wallClock(epochMs, timeZone));
  return { date: wall.toISOString().slice(0, 10), weekday: wall.getUTCDay() === 0 ? 7 : wall.getUTCDay() };
}

/**
 * When the local wall clock reads `minutes` past midnight on the day `daysOn` days after `date`
 * (`YYYY-MM-DD`): a time of day that stays the same local time across a daylight-saving change.
 */
export function zoneTimeOn(date: string, daysOn: number, minutes: number, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return zoneInstant(Date.UTC(year, month - 1, day + daysOn, 0, minutes), timeZone);
}
