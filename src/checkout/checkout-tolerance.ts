import { isObject, normalizeBody, withoutBlanks, type Body } from '../http/tolerance.ts';

const CUSTOMER_FIELDS = ['first_name', 'last_name', 'email'] as const;

/**
 * Brings a checkout create body into the one form the schemas check: the tolerance every create
 * body gets (normalizeBody), plus a nested `customer` filling missing flat names and a top-level
 * `logo` meaning `customization.logo`.
 *
 * A `null` member of `customer` or `customization` is an absent member, as a `null` field is at
 * the top level: `customization: {title: null, description: null}` (what clients send when the
 * merchant set no title) is an empty customization, never an object of nulls that the schema
 * would refuse as "must be a string". `meta` is the merchant's own data: only a `null` meta is
 * absent; whatever it holds, nulls included, is kept as sent.
 */
export function normalizeCheckoutBody(input: Body, rawJson: string | null): Body {
  const body = normalizeBody(input, rawJson);
  if (isObject(body.customer)) fillFromCustomer(body, withoutBlanks(body.customer));
  const customization = customizationOf(body);
  if (customization) body.customization = customization;
  return body;
}

/** The flat names win; the nested customer only fills the ones left out. */
function fillFromCustomer(body: Body, customer: Body): void {
  for (const field of CUSTOMER_FIELDS) {
    if (body[field] === undefined && customer[field] !== undefined) body[field] = customer[field];
  }
}

/**
 * The customization without its blank members and with a top-level `logo` folded in; undefined
 * when there is nothing to say (none sent, no logo) or when what was sent is not an object, which
 * the schema then refuses by name. An object whose members were all blank stays an (empty) object,
 * so that the legacy generation, which requires a title and a description, names each of them as
 * required.
 */
function customizationOf(body: Body): Body | undefined {
  const sent = body.customization;
  if (sent === undefined) return body.logo === undefined ? undefined : { logo: body.logo };
  if (!isObject(sent)) return undefined;
  const customization = withoutBlanks(sent);
  if (customization.logo === undefined && body.logo !== undefined) customization.logo = body.logo;
  return customization;
}
