import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, as the browser or the link carries them. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What the database keeps of a token: its SHA-256. A copy of the database opens no session and
 * sets no password; a slow hash adds nothing for 256 random bits (as for API keys).
 */
export function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A token we could have issued: anything else is unknown without asking the database. */
export function isWellFormedToken(token: unknown): token is string {
  return typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token);
}
