/**
 * A short name for people of the browser a User-Agent header names: "Chrome on Android",
 * "Safari on iPhone". Only the families people recognise are told apart; anything else is an
 * unknown browser. A browser may claim to be another (every Chromium browser says Chrome and
 * Safari, Edge says Chrome too), so the names are tried from the most particular to the most
 * common. The header is the client's own word: the name helps a person recognise their sign-ins,
 * it proves nothing.
 */

/** Longer headers are read only this far: every token the names below look for comes well before. */
const READ_LENGTH = 512;

const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOPiOS\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bUCBrowser\//, 'UC Browser'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(?:Headless)?Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\/|\bMobile\/\w+ Safari\//, 'Safari'],
];

const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

const first = (table: ReadonlyArray<readonly [RegExp, string]>, text: string): string | null =>
  table.find(([pattern]) => pattern.test(text))?.[1] ?? null;

export function browserName(userAgent: string | undefined): string {
  const text = (userAgent ?? '').slice(0, READ_LENGTH);
  const browser = first(BROWSERS, text);
  const system = first(SYSTEMS, text);
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  if (system) return `A browser on ${system}`;
  return 'An unknown browser';
}
