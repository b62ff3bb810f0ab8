import { topLevelNumberLiteral } from '../http/json-body.ts';

type Body = Record<string, unknown>;

const CUSTOMER_FIELDS = ['first_name', 'last_name', 'email'] as const;
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
/** Cheap gate before the exact scan: some `"amount"` in the text is written with a point or exponent. */
const MAYBE_NON_INTEGER_LITERAL = /"amount"\s*:\s*-?\d*[.eE]/;

/**
 * Brings a create body into the one form the schemas check (contract §4): a nested
 * `customer` fills missing flat names, a top-level `logo` is `customization.logo`, null or
 * empty optionals are absent, and an amount written as `"1000"` is the number 1000. An amount
 * written as `1e3` or `1000.0` keeps its text so that the schema rejects it as not an integer.
 */
export function normalizeCheckoutBody(input: Body, rawJson: string | null): Body {
  const body = withoutBlanks(input);
  if (isObject(body.customer)) {
    const customer = withoutBlanks(body.customer);
    for (const field of CUSTOMER_FIELDS) {
      if (body[field] === undefined && customer[field] !== undefined) body[field] = customer[field];
    }
  }
  if (body.customization === undefined || isObject(body.customization)) {
    const customization = withoutBlanks((body.customization as Body | undefined) ?? {});
    if (customization.logo === undefined && body.logo !== undefined) customization.logo = body.logo;
    if (Object.keys(customization).length > 0) body.customization = customization;
  }
  body.amount = normalizeAmount(body.amount, rawJson);
  if (body.amount === undefined) delete body.amount;
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

function withoutBlanks(object: Body): Body {
  const out: Body = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== null && value !== '') out[key] = value;
  }
  return out;
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
