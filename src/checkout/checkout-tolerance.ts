import { isObject, normalizeBody, withoutBlanks, type Body } from '../http/tolerance.ts';

const CUSTOMER_FIELDS = ['first_name', 'last_name', 'email'] as const;

/**
 * Brings a checkout create body into the one form the schemas check: the tolerance every create
 * body gets (normalizeBody), plus a nested `customer` filling missing flat names and a top-level
 * `logo` meaning `customization.logo`.
 */
export function normalizeCheckoutBody(input: Body, rawJson: string | null): Body {
  const body = normalizeBody(input, rawJson);
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
  return body;
}
