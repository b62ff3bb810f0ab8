import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  deleteSession,
  findSession,
  findUser,
  insertSession,
  touchSession,
  type User,
  type UserSession,
} from './user-repository.ts';
import { isWellFormedToken, newToken, tokenId } from './tokens.ts';

export const SESSION_COOKIE = 'lipira_dashboard';
/** A session nobody used for this long has ended. */
export const IDLE_MS = 30 * 60_000;
/** However active, a session ends this long after sign-in. */
export const ABSOLUTE_MS = 12 * 3_600_000;
/** Between the right password and the second factor's code. */
export const CODE_STEP_MS = 5 * 60_000;
/** last_seen_at is written at most this often: a page view need not be a write. */
const TOUCH_EVERY_MS = 60_000;

export interface SignedIn {
  session: UserSession;
  user: User;
}

/** Opens a session for the user; the token for the browser's cookie (only its hash is stored). */
export async function openSession(
  db: Kysely<DB>,
  userId: string,
  now: number,
  { awaitingCode }: { awaitingCode: boolean },
): Promise<string> {
  const token = newToken();
  await insertSession(db, {
    id: tokenId(token),
    user_id: userId,
    awaiting_code: awaitingCode ? 1 : 0,
    created_at: now,
    last_seen_at: now,
    expires_at: now + (awaitingCode ? CODE_STEP_MS : ABSOLUTE_MS),
  });
  return token;
}

/**
 * The session a cookie's token names, if it is still alive: an idle or expired one is ended
 * here. Its last use is recorded (at most once a minute).
 */
export async function sessionOf(db: Kysely<DB>, token: string | null, now: number): Promise<SignedIn | null> {
  if (!isWellFormedToken(token)) return null;
  const session = await findSession(db, tokenId(token));
  if (!session) return null;
  if (now >= session.expires_at || now - session.last_seen_at >= IDLE_MS) {
    await deleteSession(db, session.id);
    return null;
  }
  const user = await findUser(db, session.user_id);
  // Disabling ends the user's sessions; one opened while it was being done ends here.
  if (!user || user.disabled_at !== null) return null;
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) await touchSession(db, session.id, now);
  return { session, user };
}

export async function endSession(db: Kysely<DB>, token: string | null): Promise<void> {
  if (isWellFormedToken(token)) await deleteSession(db, tokenId(token));
}

/** The cookie carrying a session's token: never readable by scripts, sent only to the dashboard, Secure over HTTPS. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/dashboard; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
