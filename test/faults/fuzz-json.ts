import fc from 'fast-check';

/**
 * Hostile input for the fuzz run: strings, numbers and JSON texts a broken or malicious client
 * sends. JSON is built as text (not through JSON.stringify) so that it can carry what a JS value
 * cannot: duplicate keys, number literals such as `1e309` or `-0`, malformed syntax, nesting
 * thousands of levels deep.
 */

/** Marks text injected into HTML: a page that echoes it must escape it (see fuzz-oracle.ts). */
export const XSS_MARKER = 'fuzzXss';

const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE checkout_sessions; --",
  '" OR 1=1 --',
  "1' UNION SELECT token_hash FROM api_keys --",
  '1; SELECT pg_sleep(30); --',
  '%',
  '_',
  '\\',
  `<script>${XSS_MARKER}()</script>`,
  `"><img src=x onerror=${XSS_MARKER}()>`,
  `'><svg onload=${XSS_MARKER}()>`,
  `javascript:${XSS_MARKER}()`,
  '{{7*7}}',
  '${7*7}',
  '%s%s%s%n',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '\u0000',
  'a\u0000b',
  '\r\nSet-Cookie: injected=1',
  '__proto__',
  'constructor',
  'toString',
  'null',
  'undefined',
  'NaN',
  '\u202e\u0644\u0627',
  '\ufeff',
  '\ud800',
  '\udfff\ud800',
  '😀👍🏽',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '\u00a0\u2028\u2029',
];

/** Every C0 control character and DEL, alone or inside text. */
const controlCharacter = fc
  .integer({ min: 0, max: 0x20 })
  .map((code) => String.fromCharCode(code === 0x20 ? 0x7f : code));

/** Long enough to cross every maxLength (100, 255, 1000, 2048, 8 KiB); the body limit is crossed by `oversizedBody`. */
const longString = fc
  .tuple(fc.constantFrom('A', 'é', '😀', '<', '"', '\\'), fc.integer({ min: 90, max: 12_000 }))
  .map(([unit, n]) => unit.repeat(n));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...INJECTIONS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  { arbitrary: fc.string({ unit: controlCharacter, minLength: 1, maxLength: 10 }), weight: 1 },
  { arbitrary: longString, weight: 1 },
  { arbitrary: fc.constantFrom('', ' ', '\t', '0', '-1', '1.5', 'true', '[]', '{}'), weight: 2 },
);

/** Integer edges (int32, 2^53) and number literals JSON.parse reads into surprising values, written as text. */
const NUMBER_LITERALS = [
  '0',
  '-0',
  '1',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '1e3',
  '1E2',
  '1000.0',
  '1000.5',
  '0.1',
  '100e-2',
  '1e309',
  '-1e309',
  '5e-324',
  '1' + '0'.repeat(400),
];

/** Not JSON at all, but what clients and attackers type where a number goes. */
const BROKEN_LITERALS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '+1',
  '.5',
  '5.',
  '01',
  '1_000',
  'undefined',
  "'1'",
  'True',
  'nul',
];

/** A JSON value as text: a hostile leaf, or a small array or object of them. */
type JsonText = string;

const quote = (text: string) => JSON.stringify(text);

const leaf: fc.Arbitrary<JsonText> = fc.oneof(
  { arbitrary: hostileString.map(quote), weight: 6 },
  { arbitrary: fc.constantFrom(...NUMBER_LITERALS), weight: 3 },
  { arbitrary: fc.constantFrom('true', 'false', 'null', '[]', '{}', '""'), weight: 2 },
  { arbitrary: fc.integer().map(String), weight: 1 },
  { arbitrary: fc.double().map((n) => (Number.isFinite(n) ? String(n) : '1e400')), weight: 1 },
);

export const hostileJson: fc.Arbitrary<JsonText> = fc.letrec<{ value: JsonText }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: leaf, weight: 8 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`), weight: 1 },
    {
      arbitrary: fc.array(fc.tuple(hostileString, tie('value')), { maxLength: 4 }).map((pairs) => objectText(pairs)),
      weight: 1,
    },
  ),
})).value;

/** `{"k":v,...}` from key/value-text pairs, keeping repeated keys as they are. */
function objectText(pairs: ReadonlyArray<readonly [string, JsonText]>): JsonText {
  return `{${pairs.map(([key, value]) => `${quote(key)}:${value}`).join(',')}}`;
}

/** Nesting far beyond anything legitimate, still inside the body limit: 1 to 5 bytes per level. */
const deepNesting = fc
  .tuple(fc.integer({ min: 500, max: 12_000 }), fc.constantFrom('array', 'object', 'unclosed'))
  .map(([depth, shape]) => {
    if (shape === 'array') return `{"meta":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    if (shape === 'object') return `{"meta":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    return '['.repeat(depth * 4);
  });

/** Text that is not a JSON object: other JSON types, broken syntax, other formats, binary. */
const notAnObject = fc.oneof(
  fc.constantFrom(
    '[]',
    '[{}]',
    '""',
    '"{}"',
    '0',
    '-0',
    '1e309',
    'true',
    'null',
    '{',
    '}',
    '{"a":}',
    '{"a" 1}',
    "{'a':1}",
    '{"a":1,}',
    '{a:1}',
    '{"a":1}}',
    '{"a":1} x',
    '{"a":"\\x"}',
    '{"a":"\\u12"}',
    '\ufeff{}',
    '{/*c*/}',
    '// x\n{}',
  ),
  fc.constantFrom(...BROKEN_LITERALS).map((literal) => `{"amount":${literal}}`),
  fc.constantFrom(
    'amount=1000&currency=MWK',
    '--fuzz\r\nContent-Disposition: form-data; name="amount"\r\n\r\n1000\r\n--fuzz--\r\n',
    '<xml><amount>1000</amount></xml>',
    'amount: 1000\ncurrency: MWK',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

/**
 * A body for a JSON route: a valid one, a valid one with a few fields broken (wrong types,
 * hostile strings, odd number literals, removed, repeated with another value, unknown fields
 * added), or text that is not a usable JSON object at all.
 */
export function jsonBody(valid: fc.Arbitrary<Record<string, unknown>>, validWeight: number): fc.Arbitrary<string> {
  const fieldNames = valid.map((body) => Object.keys(body));
  return fc.oneof(
    { arbitrary: valid.map((body) => JSON.stringify(body)), weight: validWeight },
    {
      arbitrary: fc
        .tuple(valid, fc.array(mutation(fieldNames), { minLength: 1, maxLength: 3 }))
        .map(([body, changes]) => mutate(body, changes)),
      weight: 12,
    },
    { arbitrary: notAnObject, weight: 3 },
    { arbitrary: deepNesting, weight: 1 },
    { arbitrary: fc.constantFrom('', '   ', '{}'), weight: 1 },
  );
}

type Mutation =
  | { kind: 'replace'; field: number; value: JsonText }
  | { kind: 'remove'; field: number }
  | { kind: 'repeat'; field: number; value: JsonText; first: boolean }
  | { kind: 'add'; key: string; value: JsonText };

function mutation(fieldNames: fc.Arbitrary<string[]>): fc.Arbitrary<Mutation> {
  const field = fc.nat();
  return fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('replace' as const), field, value: hostileJson }), weight: 6 },
    { arbitrary: fc.record({ kind: fc.constant('remove' as const), field }), weight: 1 },
    {
      arbitrary: fc.record({ kind: fc.constant('repeat' as const), field, value: hostileJson, first: fc.boolean() }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        key: fc.oneof(
          hostileString,
          fieldNames.chain((names) =>
            names.length === 0 ? hostileString : fc.constantFrom(...names.map((name) => name.toUpperCase())),
          ),
        ),
        value: hostileJson,
      }),
      weight: 1,
    },
  );
}

/** Applies the changes to a valid body and writes it as JSON text, duplicate keys included. */
function mutate(body: Record<string, unknown>, changes: Mutation[]): string {
  const pairs: Array<[string, JsonText]> = Object.entries(body).map(([key, value]) => [key, JSON.stringify(value)]);
  for (const change of changes) {
    if (change.kind === 'add') {
      pairs.push([change.key, change.value]);
      continue;
    }
    if (pairs.length === 0) continue;
    const index = change.field % pairs.length;
    const [key] = pairs[index]!;
    if (change.kind === 'replace') pairs[index] = [key, change.value];
    else if (change.kind === 'remove') pairs.splice(index, 1);
    else if (change.first) pairs.splice(index, 0, [key, change.value]);
    else pairs.push([key, change.value]);
  }
  return objectText(pairs);
}

/** Just over the body limit, or far over it: the answer must be 413 (or 401 before the body is read). */
export function oversizedBody(bodyLimit: number): fc.Arbitrary<string> {
  const size = fc.oneof(
    { arbitrary: fc.integer({ min: bodyLimit + 1, max: bodyLimit + 64 }), weight: 3 },
    { arbitrary: fc.integer({ min: bodyLimit + 1, max: bodyLimit * 3 }), weight: 1 },
  );
  return size.map((bytes) => `{"tx_ref":"${'x'.repeat(Math.max(0, bytes - 13))}"}`);
}
