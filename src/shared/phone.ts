export type Operator = 'airtel' | 'tnm';

export const OPERATOR_NAMES: Record<Operator, string> = { airtel: 'Airtel Money', tnm: 'TNM Mpamba' };

/** `an Airtel Money`, `a TNM Mpamba` ("tee-en-em"): the article goes by how the name is said. */
export const OPERATOR_NAMES_WITH_ARTICLE: Record<Operator, string> = { airtel: 'an Airtel Money', tnm: 'a TNM Mpamba' };

/** Malawian mobile prefixes (after the 0 or 265): 99/98 Airtel, 88/89 TNM. */
const PREFIX_OPERATOR: Record<string, Operator> = { '99': 'airtel', '98': 'airtel', '88': 'tnm', '89': 'tnm' };

export interface MalawiMobile {
  /** International form without the plus: `265991234567`. */
  msisdn: string;
  operator: Operator;
}

/**
 * A Malawian Airtel or TNM number in any common form (`0991234567`, `991234567`,
 * `265991234567`, `+265991234567`, with spaces or dashes), or null.
 */
export function parseMalawiMobile(input: string): MalawiMobile | null {
  const digits = input.replace(/[\s().-]/g, '').replace(/^\+/, '');
  const local = /^(?:265|0)?(\d{9})$/.exec(digits)?.[1];
  if (!local) return null;
  const operator = PREFIX_OPERATOR[local.slice(0, 2)];
  return operator ? { msisdn: `265${local}`, operator } : null;
}

/** `+265990xxxx00`: enough for a customer to recognise their number, not enough to call it. */
export function maskMsisdn(msisdn: string): string {
  return `+${msisdn.slice(0, 6)}xxxx${msisdn.slice(-2)}`;
}

/** `0990xxxx00`: a masked number as Malawians write numbers, for messages to the customer. */
export function localMaskedMobile(masked: string): string {
  return masked.replace(/^\+265/, '0');
}
