import fc from 'fast-check';
import { Reference } from '../../src/core/charge-schemas.ts';
import { TEST_NUMBERS } from '../helpers/mobile-money.ts';

/** The part of JSON Schema our request schemas use (as /openapi.json publishes them). */
export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** A reference as clients choose them: URL-safe characters, never only dots. */
const referenceArbitrary: fc.Arbitrary<string> = fc
  .string({ unit: fc.constantFrom(...'ABCXYZabcxyz0123456789_.-'), minLength: 1, maxLength: 100 })
  .filter((ref) => !/^\.+$/.test(ref));

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  email: fc.oneof(fc.constantFrom('jane@example.com', "o'brien+tag@shop.example.mw"), fc.emailAddress()),
  'http-url': fc.oneof(
    fc.constantFrom('https://shop.example.com/paid?order=7', 'http://localhost:3000/cb'),
    fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
  ),
  'malawi-mobile': fc.oneof(
    fc.constantFrom(...Object.values(TEST_NUMBERS), '+265990000000', '990000000', '0888123456'),
    fc.stringMatching(/^(\+265|0)(99|98|88|89)\d{7}$/),
  ),
};

/** Patterns whose regex fast-check cannot generate from (a lookahead) get their own generator. */
const PATTERNS: Record<string, fc.Arbitrary<string>> = { [Reference.pattern!]: referenceArbitrary };

/**
 * Values a schema accepts (mostly: formats and lengths are approached, not promised), so that
 * part of the run gets past validation into the handlers. Integers lean small, so that payouts
 * fit the balance the run funded; optional properties are sometimes left out.
 */
export function validValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(validValue));
  switch (schema.type) {
    case 'object':
      return validObject(schema);
    case 'integer': {
      const min = schema.minimum ?? -(2 ** 31);
      const max = schema.maximum ?? 2 ** 31 - 1;
      return fc.oneof(
        { arbitrary: fc.integer({ min, max: Math.min(max, min + 2_000) }), weight: 4 },
        { arbitrary: fc.integer({ min, max }), weight: 1 },
      );
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return validString(schema);
    default:
      return fc.constant(null);
  }
}

export function validObject(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property)]));
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  if (schema.pattern) return PATTERNS[schema.pattern] ?? fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({
    unit: 'grapheme',
    minLength: Math.max(1, schema.minLength ?? 0),
    maxLength: Math.min(schema.maxLength ?? 40, 40),
  });
}
