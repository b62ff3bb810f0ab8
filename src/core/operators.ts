import type { Operator } from '../shared/phone.ts';

/** The operators of `GET /mobile-money`; merchants hard-code these ids and ref_ids (docs/integrate/api-reference.md#operators). */
export const OPERATORS = [
  {
    id: 1,
    name: 'TNM Mpamba',
    ref_id: '27494cb5-ba9e-437f-a114-4e7a7686bcca',
    short_code: 'tnm' as Operator,
    logo: null,
    supports_withdrawals: false,
    supported_country: { name: 'Malawi', currency: 'MWK' },
  },
  {
    id: 2,
    name: 'Airtel Money',
    ref_id: '20be6c20-adeb-4b5b-a7ba-0769820df4fb',
    short_code: 'airtel' as Operator,
    logo: null,
    supports_withdrawals: true,
    supported_country: { name: 'Malawi', currency: 'MWK' },
  },
];

export type MobileMoneyOperator = (typeof OPERATORS)[number];

export const OPERATOR_REF_IDS = OPERATORS.map((operator) => operator.ref_id);

export function operatorByRef(refId: string): MobileMoneyOperator | undefined {
  return OPERATORS.find((operator) => operator.ref_id === refId);
}

export function operatorByCode(code: Operator): MobileMoneyOperator {
  return OPERATORS.find((operator) => operator.short_code === code)!;
}
