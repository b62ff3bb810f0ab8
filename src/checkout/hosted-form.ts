import type { Body } from '../http/tolerance.ts';
import { ApiError, fieldLabel } from '../shared/errors.ts';

/** `customization[title]` → ['customization', 'title']: the bracket names of an HTML form's nested options. */
const BRACKETED = /^(customer|customization|meta)\[([^\][]+)\]$/;

/** What the form may carry that is not a session field: the key, read by the authentication hook. */
const NOT_SESSION_FIELDS = new Set(['public_key']);

/**
 * The HTML checkout's form (docs/integrate/api-reference.md#html-checkout) as the create body `POST /payment` takes: bracket
 * names (`customization[title]`, `customer[email]`, `meta[order]`) become nested objects, and a flat
 * `title` or `description`, what real integrations post, fills the customization. The nested
 * customer is folded into the flat names by the checkout's tolerance rules afterwards, as for JSON.
 * Objects are built by spreading, never by assigning a form's names onto `{}` (see tolerance.ts).
 * What the JSON parser refuses in any body is refused here too: a `__proto__` name, and U+0000
 * (`%00`) in a value, which PostgreSQL cannot store.
 */
export function hostedFormBody(form: Record<string, string>): Body {
  let body: Body = {};
  const nested: Record<string, Body> = {};
  for (const [name, value] of Object.entries(form)) {
    if (name.includes('__proto__')) throw ApiError.field(name, `The ${name} field is not allowed.`);
    if (value.includes('\u0000'))
      throw ApiError.field(name, `The ${fieldLabel(name)} must not contain null characters.`);
    const bracketed = BRACKETED.exec(name);
    if (bracketed) nested[bracketed[1]!] = { ...nested[bracketed[1]!], ...{ [bracketed[2]!]: value } };
    else if (!NOT_SESSION_FIELDS.has(name)) body = { ...body, ...{ [name]: value } };
  }
  const { title, description, ...rest } = body;
  const customization = {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...nested.customization,
  };
  return {
    ...rest,
    ...(nested.customer && { customer: nested.customer }),
    ...(Object.keys(customization).length > 0 && { customization }),
    ...(nested.meta && { meta: nested.meta }),
  };
}
