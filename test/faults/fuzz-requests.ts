import fc from 'fast-check';
import { hostileString } from './fuzz-json.ts';
import type { WorldData } from './fuzz-world.ts';

/**
 * The parts every fuzz request is made of, whatever its route: the method, the key it presents,
 * its content type, path segments and query strings. Header values stay within what HTTP allows
 * (Node's client refuses the rest before sending); everything else is fair game.
 */

/** What the key a request presents turns out to be, for the oracles. */
export type KeyState = 'valid' | 'invalid' | 'unknown';

export interface AuthChoice {
  header: string | null;
  key: KeyState;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 80,
});

/**
 * Real secret keys of both merchants and modes (so part of the run gets past authentication, in
 * every mode), and every way to get the header wrong: public keys, other schemes, truncated or
 * padded keys, well-shaped unknown keys, injection text, a very long value, none at all.
 */
export function authorizations(world: WorldData): fc.Arbitrary<AuthChoice> {
  const { a, b } = world;
  const valid = (header: string): AuthChoice => ({ header, key: 'valid' });
  const invalid = (header: string | null): AuthChoice => ({ header, key: 'invalid' });
  const key = a.test_secret_key;
  return fc
    .oneof(
      { arbitrary: fc.constant(valid(`Bearer ${key}`)), weight: 12 },
      {
        arbitrary: fc.constantFrom(
          valid(`Bearer ${a.live_secret_key}`),
          valid(`Bearer ${b.test_secret_key}`),
          valid(`Bearer ${b.live_secret_key}`),
        ),
        weight: 6,
      },
      { arbitrary: fc.constantFrom(valid(`bearer ${key}`), valid(`BEARER    ${key}`)), weight: 1 },
      { arbitrary: fc.constant(invalid(null)), weight: 3 },
      {
        arbitrary: fc.constantFrom(
          invalid(`Bearer ${a.test_public_key}`),
          invalid(`Bearer ${b.live_public_key}`),
          invalid(key),
          invalid(`Basic ${Buffer.from(`${key}:`).toString('base64')}`),
          invalid(`Token ${key}`),
          invalid('Bearer'),
          invalid('Bearer '),
          invalid(`Bearer ${key} ${key}`),
          invalid(`Bearer ${key.slice(0, -1)}`),
          invalid(`Bearer ${key}x`),
          invalid(`Bearer ${key.toUpperCase()}`),
          invalid(`Bearer sec-test-${'A'.repeat(32)}`),
          invalid(`Bearer sec-prod-${key.slice(-32)}`),
          invalid(`Bearer ${key.replace('sec-test-', 'sec-live-')}`),
          invalid("Bearer ' OR '1'='1"),
          invalid('Bearer sec-test-%00%00'),
          invalid(`Bearer ${'x'.repeat(6000)}`),
        ),
        weight: 5,
      },
      { arbitrary: printable.map((text) => invalid(`Bearer ${text}`)), weight: 2 },
    )
    .map((choice) =>
      choice.key === 'invalid' && choice.header !== null && world.principals.has(bearerOf(choice.header) ?? '')
        ? valid(choice.header)
        : choice,
    );
}

const bearerOf = (header: string) => /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];

/** Content types the server reads the body under (the body decides, whatever the label says). */
export const READABLE_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/octet-stream',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  '*/*',
  'application/json; boundary=";;;"',
];
/** Not a media type at all: refused as "not a JSON object" before the body is read. */
export const UNREADABLE_TYPES = ['', 'json'];

/** JSON under every label clients use, other formats, no media type at all, and none. */
export const contentTypes: fc.Arbitrary<string | null> = fc.oneof(
  { arbitrary: fc.constantFrom(...READABLE_TYPES.slice(0, 2)), weight: 8 },
  { arbitrary: fc.constantFrom(null, ...READABLE_TYPES.slice(2), ...UNREADABLE_TYPES), weight: 5 },
  { arbitrary: printable, weight: 1 },
);

/** Path segments that are not references: traversal, broken or odd percent-encoding, reserved characters, Latin-1 bytes. */
const RAW_SEGMENTS = [
  '.',
  '..',
  '%2e%2e',
  '%2E',
  '%2F',
  'a%2Fb',
  '%5C',
  '..%5c..%5c',
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%3F',
  '%23',
  'a#b',
  '~',
  "'",
  '(',
  '*',
  '!',
  '$',
  ';',
  ',',
  '@',
  ':',
  '+',
  '=',
  '&',
  'a;b=c',
  '[',
  ']',
  '{}',
  '|',
  '^',
  '`',
  '\\',
  '\u00f1',
  '\u00ff\u00fe',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'index.html',
  'checkout.css%00.js',
];

/** Percent-encodes text as a browser would; lone surrogates become U+FFFD first (encodeURIComponent throws on them). */
const encodeText = (text: string): string => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

/** Percent-encodes every byte, even letters: a decoded path must name the same thing. */
const encodeEveryByte = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/**
 * One path segment: a known reference (its owner's or someone else's, in either mode), a near
 * miss of one (other case, a character more or less, fully percent-encoded, followed by a
 * slash), hostile text, an odd raw segment, or one longer than any reference.
 */
export function pathSegment(known: string[]): fc.Arbitrary<string> {
  const generated = fc.oneof(
    { arbitrary: hostileString.map((text) => encodeText(text).slice(0, 900)), weight: 4 },
    { arbitrary: fc.constantFrom(...RAW_SEGMENTS), weight: 3 },
    { arbitrary: fc.integer({ min: 90, max: 300 }).map((n) => 'r'.repeat(n)), weight: 1 },
  );
  if (known.length === 0) return generated;
  const knownRef = fc.constantFrom(...known);
  const nearMiss = fc
    .tuple(knownRef, fc.constantFrom('upper', 'more', 'less', 'encoded', 'slash', 'space', 'dot'))
    .map(([ref, twist]) => {
      switch (twist) {
        case 'upper':
          return ref.toUpperCase() === ref ? ref.toLowerCase() : ref.toUpperCase();
        case 'more':
          return `${ref}x`;
        case 'less':
          return ref.slice(0, -1);
        case 'encoded':
          return encodeEveryByte(ref);
        case 'slash':
          return `${ref}/`;
        case 'space':
          return `${ref}%20`;
        default:
          return `${ref}.`;
      }
    });
  return fc.oneof(
    { arbitrary: knownRef, weight: 8 },
    { arbitrary: nearMiss, weight: 3 },
    { arbitrary: generated, weight: 5 },
  );
}

/** Query strings that break the usual shapes: repeated keys, brackets, broken encoding, prototype names, very long. */
const RAW_QUERIES = [
  '&&&',
  '=',
  '==',
  '?',
  'a',
  '%zz=1',
  '%=%',
  'a[b]=c',
  'a[]=1&a[]=2',
  '__proto__[x]=1',
  '__proto__=1',
  'constructor[prototype][x]=1',
  `x=${'y'.repeat(6000)}`,
  `x=${'y'.repeat(20_000)}`,
  ';',
];

export interface QueryParameter {
  name: string;
  /** Values the route accepts; hostile values are added. */
  values: fc.Arbitrary<string>;
}

/** A query string over the route's own parameters (valid values, hostile ones, repeated keys) or garbage. */
export function queryString(parameters: QueryParameter[]): fc.Arbitrary<string> {
  const pair =
    parameters.length === 0
      ? fc.tuple(hostileString, hostileString)
      : fc.oneof(
          ...parameters.map((p) =>
            fc.tuple(
              fc.constant(p.name),
              fc.oneof({ arbitrary: p.values, weight: 3 }, { arbitrary: hostileString, weight: 2 }),
            ),
          ),
        );
  return fc.oneof(
    { arbitrary: fc.constant(''), weight: 3 },
    // Clipped (perhaps mid-escape: `%F0%9`), so that most requests stay under the 16 KiB header limit.
    {
      arbitrary: fc
        .array(pair, { minLength: 1, maxLength: 4 })
        .map(
          (pairs) =>
            `?${pairs.map(([name, value]) => `${encodeText(name).slice(0, 200)}=${encodeText(value).slice(0, 3_000)}`).join('&')}`,
        ),
      weight: 6,
    },
    { arbitrary: fc.constantFrom(...RAW_QUERIES).map((query) => `?${query}`), weight: 2 },
  );
}

/** Mostly the route's own method; sometimes another one (405), HEAD, or one no route knows. */
export function methods(own: string): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(own), weight: 14 },
    {
      arbitrary: fc.constantFrom(
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'OPTIONS',
        'HEAD',
        'TRACE',
        'PROPFIND',
        'SEARCH',
      ),
      weight: 2,
    },
  );
}

/** Headers some clients add and some attackers forge; none of them may matter. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 6 },
  {
    arbitrary: fc.constantFrom<Record<string, string>>(
      { accept: 'text/html' },
      { accept: '*/*', 'accept-encoding': 'gzip, br' },
      { 'x-forwarded-for': "127.0.0.1, ' OR 1=1" },
      { 'x-request-id': '../../etc/passwd' },
      { 'content-encoding': 'gzip' },
      { expect: '100-continue' },
      { cookie: 'lipira_csrf=; a=b; ;;=' },
      { 'x-http-method-override': 'DELETE' },
      { origin: 'https://evil.example' },
      { host: 'evil.example' },
    ),
    weight: 1,
  },
);
