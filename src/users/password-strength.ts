import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * zxcvbn's score 3 of 4: at least 10^8 guesses by its estimate. Online, the account lock allows
 * about 480 guesses a day, so 10^8 is out of reach for centuries; offline, with the database
 * stolen, each guess costs a full scrypt hash. Score 4 (10^10) would also refuse many passphrases
 * of three or four common words that are strong enough behind both.
 */
const MIN_SCORE = 3;
/** The estimate's time grows steeply with length (over a second for 256 characters); a password whose first 100 are strong is strong. */
const JUDGED_LENGTH = 100;
/** Words anyone guessing at this gateway's dashboard would try first. */
const SITE_WORDS = ['lipira', 'paychangu', 'dashboard', 'gateway'];
const WEAK_PASSWORD_ADVICE = 'Choose a longer password: a few unrelated words, 12 characters or more; avoid names, dates and repeated letters.';

let estimator: Promise<ZxcvbnFactory> | null = null;

/**
 * The estimator with its common-password, English word and name lists, built on first use: they
 * take about 25 MB and a second or more to load, which a gateway that never sets a password need
 * not pay.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...english.dictionary }, graphs: common.adjacencyGraphs, translations: english.translations, maxLength: JUDGED_LENGTH });
  })().catch((error: unknown) => {
    estimator = null;
    throw error;
  });
  return estimator;
}

/**
 * What a password must not be made of: the user's own texts (their address, their business's
 * name), whole, run together and word by word, so that "mangoshop2026" is weak for Mango Shop.
 */
export function personalWords(...texts: string[]): string[] {
  const words = texts.flatMap((text) => {
    const lower = text.toLowerCase();
    return [lower, lower.replace(/[^\p{L}\p{N}]+/gu, ''), ...lower.split(/[^\p{L}\p{N}]+/u)];
  });
  return [...new Set([...SITE_WORDS, ...words])].filter((word) => word.length >= 3);
}

/** Spaces and punctuation between words: a guesser tries word lists with and without them. */
const SEPARATORS = /[\s._-]+/g;

/**
 * Why a password is too easy to guess, with what would do instead; null when it is strong
 * enough. It is judged as typed and with the separators between its words taken out, and the
 * weaker estimate counts: zxcvbn multiplies its estimate by 10^4 for every piece it finds, a
 * space included, so "password password" or "Mango Shop 2026" would otherwise pass on their
 * spaces alone.
 */
export async function weaknessOf(password: string, personal: string[]): Promise<string | null> {
  const estimate = await loadEstimator();
  const results = [password, password.replace(SEPARATORS, '')].map((variant) => estimate.check(variant, personal));
  const weakest = results.reduce((weaker, result) => (result.guesses < weaker.guesses ? result : weaker));
  if (weakest.score >= MIN_SCORE) return null;
  return `This password is too easy to guess.${weakest.feedback.warning ? ` ${weakest.feedback.warning}` : ''} ${WEAK_PASSWORD_ADVICE}`;
}
