import { topLevelNumberLiteral } from './json-body.ts';

export type Body = Record<string, unknown>;

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
/** Cheap gate before the exact scan: some `"amount"` in the text is written with a point or exponent. */
const MAYBE_NON_INTEGER_LITERAL = /"amount"\s*:\s*-?\d*[.eE]/;

/**
 * What every create body tolerates (docs/integrate/api-reference.md#tolerance): null or empty optionals are absent, and an
 * amount written as `"1000"` is the number 1000. An amount written as `1e3` or `1000.0` keeps its
 * text, so that the schema rejects it as not an integer.
 */
export function normalizeBody(input: Body, rawJson: string | null): Body {
  const body = withoutBlanks(input);
  const amount = normalizeAmount(body.amount, rawJson);
  if (amount === undefined) delete body.amount;
  else body.amount = amount;
  return body;
}

function normalizeAmount(amount: unknown, rawJson: string | null): unknown {
  if (typeof amount === 'string' && INTEGER_TEXT.test(amount)) return Number(amount);
  if (typeof amount === 'number' && rawJson !== null && MAYBE_NON_INTEGER_LITERAL.test(rawJson)) {
    const literal = topLevelNumberLiteral(rawJson, 'amount');
    if (literal !== null && /[.eE]/.test(literal)) return literal;
  }
  return amount;
}

/**
 * A copy without null or empty values. Copied by spreading, never by assigning a merchant's keys
 * onto `{}`: assignment treats a key such as `__proto__` as the copy's prototype, spreading keeps
 * every key a plain one (and costs less than Object.fromEntries).
 */
export function withoutBlanks(object: Body): Body {
  const out = { ...object };
  for (const key in out) {
    if (out[key] === null || out[key] === '') delete out[key];
  }
  return out;
}

/**
 * A route's preValidation hook bringing its body into the form its schema checks: a callback
 * hook, so that a create waits for no promise here.
 */
export function normalizing(normalize: (body: Body, rawJson: string | null) => Body) {
  return (request: { body: unknown; rawJson: string | null }, _reply: unknown, done: () => void): void => {
    request.body = normalize((request.body ?? {}) as Body, request.rawJson);
    done();
  };
}

export function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
