import type { FastifySchemaValidationError } from 'fastify';
import type { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { fieldLabel, type FieldErrors } from '../shared/errors.ts';
import { parseMalawiMobile } from '../shared/phone.ts';
import { isHttpUrl } from '../shared/urls.ts';

/** How every request schema is checked: as sent (no coercion, no defaults, nothing removed), every error at once. */
export const AJV_OPTIONS = {
  coerceTypes: false,
  allErrors: true,
  removeAdditional: false,
  useDefaults: false,
} as const;

/** Adds the formats and keywords our request schemas use to Fastify's Ajv. */
export function ajvPlugin(ajv: Ajv): Ajv {
  addFormats.default(ajv, ['email']);
  ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
  ajv.addFormat('malawi-mobile', { type: 'string', validate: (text: string) => parseMalawiMobile(text) !== null });
  // Named as an extension (`x-`): the schema is published in the OpenAPI document, which allows
  // no keyword of our own under another name.
  ajv.addKeyword({
    keyword: 'x-maxJsonBytes',
    type: 'object',
    schemaType: 'number',
    error: { message: 'too large', params: (cxt) => ({ limit: cxt.schema }) as never },
    validate: (limit: number, data: unknown) => jsonBytesWithin(data, limit),
  });
  return ajv;
}

/** Whether a parsed JSON value, written back as JSON, fits in `limit` bytes (the parser bounds its depth). */
function jsonBytesWithin(data: unknown, limit: number): boolean {
  return Buffer.byteLength(JSON.stringify(data)) <= limit;
}

/** Turns Ajv's errors into the Laravel texts PayChangu clients expect, one list per field. */
export function laravelFieldErrors(errors: FastifySchemaValidationError[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const parent = error.instancePath.split('/').filter(Boolean).join('.');
    const missing = error.keyword === 'required' ? String(error.params.missingProperty) : '';
    const field = [parent, missing].filter(Boolean).join('.') || 'body';
    const message = laravelMessage(fieldLabel(field), error);
    const list = (fields[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return fields;
}

function laravelMessage(label: string, error: FastifySchemaValidationError): string {
  const limit = error.params.limit;
  switch (error.keyword) {
    case 'required':
      return `The ${label} field is required.`;
    case 'minLength':
      return `The ${label} field is required.`;
    case 'type':
      return `The ${label} must be ${TYPE_WORDS[String(error.params.type)] ?? `of type ${String(error.params.type)}`}.`;
    case 'enum':
    case 'const':
      return `The selected ${label} is invalid.`;
    case 'format':
      return `The ${label} must be ${FORMAT_WORDS[String(error.params.format)] ?? 'valid'}.`;
    case 'maxLength':
      return `The ${label} must not be greater than ${String(limit)} characters.`;
    case 'minimum':
      return `The ${label} must be at least ${String(limit)}.`;
    case 'maximum':
      return `The ${label} must not be greater than ${String(limit)}.`;
    case 'pattern':
      return `The ${label} format is invalid.`;
    case 'x-maxJsonBytes':
      return `The ${label} must not be greater than ${Number(limit) / 1024} kilobytes.`;
    default:
      return `The ${label} is invalid.`;
  }
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'a valid email address',
  'http-url': 'a valid URL',
  'malawi-mobile': 'an Airtel Money or TNM Mpamba number',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  object: 'an object',
  boolean: 'true or false',
  array: 'an array',
};
