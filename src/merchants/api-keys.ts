import { hash, timingSafeEqual } from 'node:crypto';
import type { Mode } from '../shared/ids.ts';

const SECRET_KEY_SHAPE = /^sec-(test|live)-[0-9A-Za-z]{32}$/;

/**
 * Keys carry 190 random bits, so a plain SHA-256 is a sound one-way store for them: there is
 * nothing for a slow password hash to protect against, and lookups stay one index probe.
 */
export function hashKey(token: string): string {
  // The one-shot form: a hash object per request cost several times the digest itself.
  return hash('sha256', token, 'hex');
}

/** The mode a well-formed secret key claims, or null for anything else (public keys included). */
export function secretKeyMode(token: string): Mode | null {
  const match = SECRET_KEY_SHAPE.exec(token);
  return match ? (match[1] as Mode) : null;
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
