export interface CardDetails {
  number: string;
  brand: 'VISA' | 'MASTERCARD';
  /** `YYYY-MM`, as verification shows it. */
  expiry: string;
}

export type CardProblem = { field: 'card_number' | 'expiry' | 'cvv'; message: string };

/**
 * Checks the shape of what a customer typed; the CVV is looked at here and never kept. The
 * Luhn check is the issuer side's business (`passesLuhn`): sandbox test cards need not pass it.
 */
export function readCard(
  numberInput: string,
  expiryInput: string,
  cvvInput: string,
  now = new Date(),
): CardDetails | CardProblem {
  const number = numberInput.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) return { field: 'card_number', message: 'Enter a valid card number.' };
  const brand = cardBrand(number);
  if (!brand) return { field: 'card_number', message: 'Only Visa and Mastercard cards are accepted.' };
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiryInput);
  const month = Number(expiry?.[1]);
  const year = expiry ? Number(expiry[2]!.length === 2 ? `20${expiry[2]}` : expiry[2]) : 0;
  if (!expiry || month < 1 || month > 12) return { field: 'expiry', message: 'Enter the expiry date as MM/YY.' };
  if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1)
    return { field: 'expiry', message: 'This card has expired.' };
  if (!/^\d{3,4}$/.test(cvvInput.trim())) return { field: 'cvv', message: 'Enter the 3 or 4 digit security code.' };
  return { number, brand, expiry: `${year}-${String(month).padStart(2, '0')}` };
}

export function isCardProblem(result: CardDetails | CardProblem): result is CardProblem {
  return 'field' in result;
}

function cardBrand(number: string): CardDetails['brand'] | null {
  if (number.startsWith('4')) return 'VISA';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'MASTERCARD';
  return null;
}

export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** `424242******4242`: the first six and last four digits, the rest hidden. */
export function maskCardNumber(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`;
}
