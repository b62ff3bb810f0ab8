/**
 * What a dashboard user is told when something happens to their account that they did not do
 * from their own browser: someone else reset their password or two-factor sign-in, or their
 * account was signed in to from a browser never seen for it. Each goes to the account's own
 * address, through the outbox, in the transaction of what it tells.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { html, joinHtml, type SafeHtml } from '../web/html.ts';
import type { ComposedEmail } from './receipt-email.ts';
import { queueAccountEmail } from './set-password-email.ts';

interface Recipient {
  recipient: string;
  /** Null for a gateway operator. */
  merchantId: string | null;
  /** Whose dashboard the account opens: the merchant's name, or the gateway's. */
  accountOf: string;
}

export interface PasswordResetNotice extends Recipient {
  /** Who reset it, in words: "owner@shop.example, an owner of Shop", "the gateway's operator". */
  by: string;
  /** Whether the user had set a password (one invited by link may not have yet). */
  hadPassword: boolean;
  link: string;
  validHours: number;
}

export interface TwoFactorResetNotice extends Recipient {
  by: string;
  signInUrl: string;
}

export interface NewBrowserNotice extends Recipient {
  /** When, in the gateway's time zone, as people read it. */
  when: string;
  address: string;
  browser: string;
  accountUrl: string;
}

/** The plain text and the HTML of one short letter: paragraphs, an optional link, a closing paragraph in grey. */
function letter(
  subject: string,
  paragraphs: string[],
  link: { href: string; label: string } | null,
  closing: string,
): ComposedEmail {
  const parts: SafeHtml[] = paragraphs.map((paragraph) => html`<p>${paragraph}</p>`);
  if (link) parts.push(html`<p><a href="${link.href}">${link.label}</a></p>`);
  return {
    subject,
    text: `${[...paragraphs, ...(link ? [link.href] : []), closing].join('\n\n')}\n`,
    html: joinHtml(
      [
        html`<!doctype html>`,
        html`<html><head><meta charset="utf-8"><title>${subject}</title></head>`,
        html`<body style="font-family:Arial,Helvetica,sans-serif;color:#222">`,
        ...parts,
        html`<p style="color:#555">${closing}</p>`,
        html`</body></html>`,
      ],
      '\n',
    ).toString(),
  };
}

const NOT_YOU_RESET =
  'If you did not ask for this, tell an owner of your team or the gateway’s operator: only they can make this change.';

export function composePasswordResetEmail(notice: PasswordResetNotice): ComposedEmail {
  return letter(
    `Your password for the ${notice.accountOf} dashboard was reset`,
    [
      `${notice.by} reset your password for the ${notice.accountOf} payments dashboard and signed you out of every browser.${notice.hadPassword ? ' Your old password no longer works.' : ''}`,
      `Choose a new password with this link, within ${notice.validHours} hours; it works once.`,
    ],
    { href: notice.link, label: 'Choose a new password' },
    NOT_YOU_RESET,
  );
}

export function composeTwoFactorResetEmail(notice: TwoFactorResetNotice): ComposedEmail {
  return letter(
    `Two-factor sign-in for the ${notice.accountOf} dashboard was turned off`,
    [
      `${notice.by} turned off two-factor sign-in for your account on the ${notice.accountOf} payments dashboard and signed you out of every browser.`,
      'Your next sign-in asks for your password only, and then takes you to set two-factor sign-in up again with your authenticator app.',
    ],
    { href: notice.signInUrl, label: 'Sign in' },
    NOT_YOU_RESET,
  );
}

export function composeNewBrowserEmail(notice: NewBrowserNotice): ComposedEmail {
  return letter(
    `A sign-in to the ${notice.accountOf} dashboard from a new browser`,
    [
      `Your account on the ${notice.accountOf} payments dashboard was signed in to from a browser it had not been used from before.`,
      `When: ${notice.when}. Address: ${notice.address}. Browser: ${notice.browser}.`,
      'If this was you, there is nothing to do. If it was not, someone knows your password: sign in, press “Sign out everywhere” on your account page, and ask an owner of your team or the gateway’s operator to reset your password; then turn on two-factor sign-in.',
    ],
    { href: notice.accountUrl, label: 'Your account and its recent sign-ins' },
    'You are told of each sign-in from a browser not seen before for your account, never of one from a browser you used already.',
  );
}

type Kind = 'password_reset_notice' | 'two_factor_reset_notice' | 'new_browser_sign_in';

/** Queues one of the notices in the email outbox, in the caller's transaction. */
async function queueNotice(trx: Kysely<DB>, to: Recipient, kind: Kind, email: ComposedEmail, now: number) {
  await queueAccountEmail(trx, { recipient: to.recipient, merchantId: to.merchantId, kind, email }, now);
}

export const queuePasswordResetEmail = (trx: Kysely<DB>, notice: PasswordResetNotice, now: number) =>
  queueNotice(trx, notice, 'password_reset_notice', composePasswordResetEmail(notice), now);

export const queueTwoFactorResetEmail = (trx: Kysely<DB>, notice: TwoFactorResetNotice, now: number) =>
  queueNotice(trx, notice, 'two_factor_reset_notice', composeTwoFactorResetEmail(notice), now);

export const queueNewBrowserEmail = (trx: Kysely<DB>, notice: NewBrowserNotice, now: number) =>
  queueNotice(trx, notice, 'new_browser_sign_in', composeNewBrowserEmail(notice), now);
