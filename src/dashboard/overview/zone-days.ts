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
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** The local wall clock at `epochMs`, read as if it were UTC: its difference to `epochMs` is the zone's offset then. */
function wallClock(epochMs: number, timeZone: string): number {
  const parts = Object.fromEntries(dateFormat(timeZone).formatToParts(epochMs).map((part) => [part.type, part.value]));
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** The local midnight starting the day `daysBack` days before the one holding `epochMs`. */
function localMidnight(epochMs: number, daysBack: number, timeZone: string): ZoneDay {
  const wall = new Date(wallClock(epochMs, timeZone));
  const midnightAsUtc = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() - daysBack);
  // The offset at the guess, then at the corrected guess: right on both sides of a DST change.
  let start = midnightAsUtc - (wallClock(midnightAsUtc, timeZone) - midnightAsUtc);
  start = midnightAsUtc - (wallClock(start, timeZone) - start);
  return { date: new Date(midnightAsUtc).toISOString().slice(0, 10), start };
}

/** The last `count` local days up to and including today, oldest first. */
export function lastDays(now: number, count: number, timeZone: string): ZoneDay[] {
  return Array.from({ length: count }, (_, index) => localMidnight(now, count - 1 - index, timeZone));
}
