/** The confirmation asked before someone else's two-factor sign-in or password is reset. */
import { LINK_VALID_HOURS } from '../../users/user-service.ts';
import type { User } from '../../users/user-repository.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { postButton, shell, type Viewer } from '../layout.ts';

export type ResetKind = 'two-factor' | 'password';

const TITLES: Record<ResetKind, string> = {
  'two-factor': 'Reset two-factor sign-in',
  password: 'Reset the password',
};

export function renderResetConfirmPage(viewer: Viewer, kind: ResetKind, member: User, back: string): SafeHtml {
  const what =
    kind === 'two-factor'
      ? html`<h1>Reset the two-factor sign-in of ${member.email}?</h1>
<p>Their authenticator app stops working for this account. Their next sign-in asks for their password alone, then takes them to set two-factor sign-in up again.</p>
<p class="warning">Do this only when you know they asked for it (a lost or replaced phone): until they set it up again, whoever knows their password can sign in with it alone.</p>`
      : html`<h1>Reset the password of ${member.email}?</h1>
<p>The password they have stops working now. They are emailed a link to choose a new one; it works once, for ${LINK_VALID_HOURS} hours.</p>`;
  const body = html`${what}
<dl class="facts"><dt>Email</dt><dd>${member.email}</dd><dt>Role</dt><dd>${member.role}</dd><dt>Two-factor sign-in</dt><dd>${member.totp_secret === null ? 'Off' : 'On'}</dd></dl>
<p>They are signed out of every browser at once, and emailed that you did this. The audit log records it.</p>
<p class="actions">${postButton(viewer.path, viewer.csrf, TITLES[kind], 'danger')}<a href="${back}">Keep it as it is</a></p>`;
  return shell(TITLES[kind], body, { viewer, wide: false });
}

/**
 * The links to a member's resets, each to its confirmation page; `base` is the member's path
 * (ResetPlace). Each link's name starts with its visible words, as speech input needs.
 */
export function resetLinks(base: string, email: string, twoFactor: boolean): SafeHtml {
  const resetTwoFactor =
    twoFactor &&
    html`<a href="${base}/reset-two-factor" aria-label="Reset two-factor of ${email}">Reset two-factor</a><br>`;
  return html`${resetTwoFactor}<a href="${base}/reset-password" aria-label="Reset password of ${email}">Reset password</a>`;
}
