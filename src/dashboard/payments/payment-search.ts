/**
 * The payments search as typed, read into what the repository looks for: words, each of which a
 * payment's search text (src/db/search-text.ts) must hold somewhere, in any case. A whole
 * Malawian mobile number, in any form, is also looked for as the gateway stores numbers: masked
 * (`+265991xxxx67`, `maskMsisdn`), so it finds the payments made from any number masked the same.
 */
import { maskMsisdn, parseMalawiMobile } from '../../shared/phone.ts';

export interface PaymentSearch {
  /** What was typed, trimmed. */
  text: string;
  /** Lists of words (lowercased): a payment is found when its text holds every word of one list. */
  alternatives: string[][];
}

/** The full-text indexes are of trigrams: a shorter word could only be looked for by reading every row. */
export const SHORTEST_WORD = 3;
const LONGEST_SEARCH = 200;
const MOST_WORDS = 8;

/**
 * The search in `typed`, or null with why when nothing in it can be looked for. Words shorter than
 * three characters are left out; a mobile number is one word, its spaces and dashes taken out.
 */
export function parsePaymentSearch(typed: string): { search: PaymentSearch | null; problem: string | null } {
  const text = typed.trim().slice(0, LONGEST_SEARCH);
  if (text === '') return { search: null, problem: null };
  const mobile = parseMalawiMobile(text);
  if (mobile) {
    const written = text.replace(/[\s().-]/g, '');
    return {
      search: { text, alternatives: [[lowerAscii(written)], [lowerAscii(maskMsisdn(mobile.msisdn))]] },
      problem: null,
    };
  }
  const words = [
    ...new Set(
      text
        .split(/\s+/)
        .filter((word) => [...word].length >= SHORTEST_WORD)
        .map(lowerAscii),
    ),
  ].slice(0, MOST_WORDS);
  if (words.length === 0)
    return {
      search: null,
      problem: `The search "${text}" has no word of ${SHORTEST_WORD} characters or more, so it was ignored.`,
    };
  return { search: { text, alternatives: [words] }, problem: null };
}

/** The search for one customer's payments: their key (an email or a masked number) as one word. */
export function customerSearch(key: string): PaymentSearch {
  return { text: key, alternatives: [[lowerAscii(key)]] };
}

/**
 * Lowercased as SQLite's lower() does it, A to Z only: SQLite's index holds text lowered so.
 * PostgreSQL compares with ILIKE, which ignores case in every alphabet, whatever the search's.
 */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}
