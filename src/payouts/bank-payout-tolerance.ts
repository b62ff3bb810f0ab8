import { normalizeBody, type Body } from '../http/tolerance.ts';

/** A whole number of kwacha written with its tambala: `"1000.00"`, `"1000.0"`. */
const WHOLE_KWACHA_WITH_TAMBALA = /^\s*(\d+)\.0{1,2}\s*$/;

/**
 * What a bank payout body tolerates beyond every create's rules: the Go client
 * (santinalbrowns/paychangu, payout.go) always writes a bank payout's amount with two decimals,
 * `fmt.Sprintf("%.2f", amount)`, so `"1000.00"` is the whole amount 1000. A fraction of a kwacha
 * (`"1000.50"`) keeps its text and is refused as not an integer, as everywhere.
 */
export function normalizeBankPayoutBody(input: Body, rawJson: string | null): Body {
  const whole = typeof input.amount === 'string' ? WHOLE_KWACHA_WITH_TAMBALA.exec(input.amount)?.[1] : undefined;
  return normalizeBody(whole === undefined ? input : { ...input, amount: whole }, rawJson);
}
