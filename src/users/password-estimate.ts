import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * zxcvbn's score 3 of 4: at least 10^8 guesses by its estimate. Online, the account lock allows
 * about 480 guesses a day, so 10^8 is out of reach for centuries; offline, with the database
 * stolen, each guess costs a full scrypt hash. Score 4 (10^10) would also refuse many passphrases
 * of three or four common words that are strong enough behind both.
 */
const MIN_SCORE = 3;
/**
 * The estimate's time grows steeply with length (0.1 to 0.2 s for 100 characters, even with the
 * cap below); a password whose first 64 characters are strong is strong.
 */
const JUDGED_LENGTH = 64;
/**
 * How many l33t substitutions (@ for a, 0 for o…) zxcvbn combines when it looks for dictionary
 * words (its default is 100). Each one multiplies the combinations it tries: with 100, a
 * 32-character password of symbols took 0.9-1.1 s on a small server, with 8 about 0.05-0.1 s. On 43
 * test passwords (common ones written in l33t, passphrases, random strings) 8 gave the default's
 * score and guess count for every one; 4 raised one estimate.
 */
const L33T_SUBSTITUTIONS = 8;
const WEAK_PASSWORD_ADVICE =
  'Choose a longer password: a few unrelated words, 12 characters or more; avoid names, dates and repeated letters.';

let estimator: Promise<ZxcvbnFactory> | null = null;

/**
 * The estimator with its common-password, English word and name lists, built on first use: they
 * take about 25 MB and a second or more to load.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
      maxLength: JUDGED_LENGTH,
      l33tMaxSubstitutions: L33T_SUBSTITUTIONS,
    });
  })().catch((error: unknown) => {
    estimator = null;
    throw error;
  });
  return estimator;
}

/** Spaces and punctuation between words: a guesser tries word lists with and without them. */
const SEPARATORS = /[\s._-]+/g;

/**
 * Why a password is too easy to guess, with what would do instead; null when it is strong
 * enough. It is judged as typed and with the separators between its words taken out, and the
 * weaker estimate counts: zxcvbn multiplies its estimate by 10^4 for every piece it finds, a
 * space included, so "password password" or "Mango Shop 2026" would otherwise pass on their
 * spaces alone. Seconds of work at worst: password-strength.ts runs it in a thread of its own.
 */
export async function judgePassword(password: string, personal: string[]): Promise<string | null> {
  const estimate = await loadEstimator();
  const results = [password, password.replace(SEPARATORS, '')].map((variant) => estimate.check(variant, personal));
  const weakest = results.reduce((weaker, result) => (result.guesses < weaker.guesses ? result : weaker));
  if (weakest.score >= MIN_SCORE) return null;
  return `This password is too easy to guess.${weakest.feedback.warning ? ` ${weakest.feedback.warning}` : ''} ${WEAK_PASSWORD_ADVICE}`;
}
