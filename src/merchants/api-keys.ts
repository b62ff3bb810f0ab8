import { hash, timingSafeEqual } from 'node:crypto';

const SECRET_KEY_SHAPE = /^sec-(test|live)-[0-9A-Za-z]{32}$/;
const PUBLIC_KEY_SHAPE = /^pub-(test|live)-[0-9A-Za-z]{32}$/;

/**
 * Keys carry 190 random bits, so a plain SHA-256 is a sound one-way store for them: there is
 * nothing for a slow password hash to protect against, and lookups stay one index probe.
 */
export function hashKey(token: string): string {
  // The one-shot form: a hash object per request cost several times the digest itself.
  return hash('sha256', token, 'hex');
}

/** Whether `token` has a public key's shape (`pub-test-…`, `pub-live-…`): what a browser may hold. */
export function isPublicKeyShape(token: string): boolean {
  return PUBLIC_KEY_SHAPE.test(token);
}

/** Which kind of key a well-formed token is, or null for anything else. */
export function keyKindOf(token: string): 'secret' | 'public' | null {
  if (SECRET_KEY_SHAPE.test(token)) return 'secret';
  return PUBLIC_KEY_SHAPE.test(token) ? 'public' : null;
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What may be shown of a secret again: its mode prefix and four characters. */
export function visiblePart(token: string): string {
  return `${token.slice(0, 'sec-test-'.length + 4)}…`;
}
