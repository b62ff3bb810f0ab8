import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LazyThread, ThreadUnavailableError } from '../shared/lazy-thread.ts';
import type { StrengthAnswer, StrengthQuestion } from './password-strength-worker.ts';

/** Words anyone guessing at this gateway's dashboard would try first. */
const SITE_WORDS = ['lipira', 'paychangu', 'dashboard', 'gateway'];
/** The answer when a password could not be judged: refused, never taken unjudged. */
export const CHECK_FAILED = 'The password could not be checked just now. Please try again in a moment.';

/**
 * The worker's module beside this one: the sources' `.ts` when they run through tsx (the tests;
 * a worker inherits the loader with its execArgv), the bundle's `.mjs` when `lipira` runs.
 */
const WORKER_MODULE = new URL(
  `./password-strength-worker${path.extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * Judging a password is seconds of CPU at worst (loading the word lists alone blocks a thread for
 * about a second): in the gateway's event loop, anyone holding a set-password link could stall
 * every payment. It runs in a thread of its own, started on the first check and ended after a
 * minute without one, so that a gateway that never sets a password pays nothing (~25 MB of word
 * lists, ~10 MB of thread). A check takes 0.2 s at worst once the lists are loaded: 5 s, waiting
 * its turn included, is a stuck thread. The thread's start (loading the lists, about a second;
 * several on a busy machine, more where the sources run through tsx) is allowed 30 s more.
 */
const judge = new LazyThread<StrengthQuestion, StrengthAnswer>(WORKER_MODULE, {
  answerWithinMs: 5_000,
  startWithinMs: 30_000,
  endIdleAfterMs: 60_000,
});

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

/**
 * Why a password is too easy to guess, with what would do instead (password-estimate.ts); null
 * when it is strong enough; CHECK_FAILED when it could not be judged in time.
 */
export async function weaknessOf(password: string, personal: string[]): Promise<string | null> {
  try {
    const answer = await judge.ask({ password, personal });
    return 'weakness' in answer ? answer.weakness : CHECK_FAILED;
  } catch (error) {
    if (!(error instanceof ThreadUnavailableError)) throw error;
    return CHECK_FAILED;
  }
}
