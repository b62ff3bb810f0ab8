import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { queueNewBrowserEmail } from '../emails/account-notice-email.ts';
import { findMerchant } from '../merchants/merchant-service.ts';
import { ids } from '../shared/ids.ts';
import { formatHumanDate } from '../shared/time.ts';
import { browserName } from './browser-names.ts';
import { browsersSeen, insertSignIn, pruneSignIns, recentSignIns, type SignIn } from './sign-in-repository.ts';
import { isWellFormedToken, newToken, tokenId } from './tokens.ts';
import { findUser, updateUser, type User } from './user-repository.ts';

/**
 * The browser's own name for itself: a random token it keeps long after its sessions end, so
 * that a sign-in can be told to come from a browser seen before for the user, or not. A
 * User-Agent alone could not tell: every phone of one model and version sends the same.
 */
export const BROWSER_COOKIE = 'lipira_browser';
/** 400 days, the longest a browser keeps a cookie (Chrome caps Max-Age there). */
const BROWSER_COOKIE_SECONDS = 400 * 86_400;
/** Sign-ins kept per user: the history a person reads is short; older rows only grow the table. */
const KEPT_PER_USER = 100;
/** Sign-ins the account page shows. */
export const SHOWN_SIGN_INS = 20;

/** Where a sign-in came from, as the request tells. */
export interface SignInPlace {
  /** The client's address as the gateway judges it (clientAddress). */
  address: string;
  userAgent: string | undefined;
  /** The browser cookie's token, if it sent one. */
  browserToken: string | null;
}

export interface SignInRecorded {
  /** For the browser cookie: the one the browser sent when it was one of ours, else a new one. */
  browserToken: string;
  /** Someone else reset the user's two-factor sign-in since they last signed in: ask them to set it up again. */
  twoFactorDue: boolean;
}

/**
 * Called once a sign-in is complete (both factors): records it (newest 100 kept), and emails the
 * user when the browser was never seen for them, unless this is their first sign-in of all (the
 * one that follows setting their password, with nothing yet to compare with). The user's row is
 * written first, so that two sign-ins of one user at once take turns and a new browser is told
 * of once.
 */
export async function recordSignIn(
  db: Kysely<DB>,
  config: Pick<Config, 'publicBaseUrl' | 'timeZone'>,
  user: User,
  place: SignInPlace,
  now: number,
): Promise<SignInRecorded> {
  const browserToken = isWellFormedToken(place.browserToken) ? place.browserToken : newToken();
  const browserHash = tokenId(browserToken);
  const browser = browserName(place.userAgent);
  return db.transaction().execute(async (trx) => {
    await updateUser(trx, user.id, { updated_at: now });
    const current = (await findUser(trx, user.id)) ?? user;
    const seen = await browsersSeen(trx, user.id, browserHash);
    await insertSignIn(trx, {
      id: ids.signIn(),
      user_id: user.id,
      address: place.address,
      browser,
      browser_hash: browserHash,
      created_at: now,
    });
    await pruneSignIns(trx, user.id, KEPT_PER_USER);
    if (seen.any && !seen.this) {
      const merchant = current.merchant_id === null ? null : await findMerchant(trx, current.merchant_id);
      await queueNewBrowserEmail(
        trx,
        {
          recipient: current.email,
          merchantId: current.merchant_id,
          accountOf: merchant?.name ?? 'Lipira gateway',
          when: formatHumanDate(now, config.timeZone),
          address: place.address,
          browser,
          accountUrl: `${config.publicBaseUrl}/dashboard/account`,
        },
        now,
      );
    }
    const twoFactorDue = current.two_factor_reset_at !== null;
    if (twoFactorDue) await updateUser(trx, user.id, { two_factor_reset_at: null });
    return { browserToken, twoFactorDue: twoFactorDue && current.totp_secret === null };
  });
}

/** The user's sign-ins the account page shows, newest first. */
export function signInHistory(db: Kysely<DB>, userId: string): Promise<SignIn[]> {
  return recentSignIns(db, userId, SHOWN_SIGN_INS);
}

/** Whether a sign-in of the history was made from the browser whose cookie holds `browserToken`. */
export function fromThisBrowser(signIn: SignIn, browserToken: string | null): boolean {
  return isWellFormedToken(browserToken) && signIn.browser_hash === tokenId(browserToken);
}

/** The browser cookie: kept 400 days, sent only to the dashboard, never readable by scripts, Secure over HTTPS. */
export function browserCookie(token: string, secure: boolean): string {
  return `${BROWSER_COOKIE}=${token}; Path=/dashboard; Max-Age=${BROWSER_COOKIE_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
