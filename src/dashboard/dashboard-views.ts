/**
 * The dashboard's pages. Every string a user, merchant or request supplied is escaped here; the
 * forms all carry the double-submit token (`csrf`).
 */
import { html, type SafeHtml } from '../web/html.ts';
import { shell, type Viewer } from './layout.ts';
import { csrfField, errorBox, noticeBox } from '../web/components.ts';
import type { PasswordLinkPurpose } from '../db/schema.ts';
import { MIN_PASSWORD_LENGTH } from '../users/passwords.ts';
import { RECOVERY_CODE_COUNT } from '../users/recovery-codes.ts';
import { LINK_VALID_HOURS, RESET_LINK_VALID_MINUTES } from '../users/user-service.ts';

export function renderLoginPage(
  csrf: string,
  state: { email: string; error: string | null; notice?: string | null },
): SafeHtml {
  return shell(
    'Sign in',
    html`<h1>Sign in</h1>
${noticeBox(state.notice)}${errorBox(state.error)}
<form class="stack" method="post" action="/dashboard/login">${csrfField(csrf)}
<label>Email<input type="email" name="email" autocomplete="username" required value="${state.email}"></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<p class="actions"><a href="/dashboard/forgot-password">Forgot your password?</a></p>`,
  );
}

/** The second step of sign-in: the authenticator's code, or one of the recovery codes in its place. */
export function renderCodePage(csrf: string, error: string | null): SafeHtml {
  return shell(
    'Two-factor code',
    html`<h1>Enter your code</h1>
<p class="muted">Open your authenticator app and type the 6-digit code it shows for Lipira.</p>
${errorBox(error)}
<form class="stack" method="post" action="/dashboard/login">${csrfField(csrf)}
<label>Code<input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required></label>
<button type="submit">Continue</button>
</form>
<h2>No phone at hand?</h2>
<p class="muted">Or use a recovery code: one of the ${RECOVERY_CODE_COUNT} you saved when you turned on two-factor sign-in. Each works once.</p>
<form class="stack" method="post" action="/dashboard/login">${csrfField(csrf)}
<label>Recovery code<input type="text" name="recovery_code" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="40" required></label>
<button type="submit" class="secondary">Sign in with a recovery code</button>
</form>
<p class="actions"><a href="/dashboard/login?restart=1">Start again</a></p>`,
  );
}

/** The page a password link opens: a first password, or (`reset`) a new one for a forgotten one. */
export function renderSetPasswordPage(
  csrf: string,
  link: { token: string; email: string; purpose: PasswordLinkPurpose },
  error: string | null,
): SafeHtml {
  const { token, email, purpose } = link;
  const title = purpose === 'reset' ? 'Choose a new password' : 'Set your password';
  return shell(
    title,
    html`<h1>${title}</h1>
<p>For <strong>${email}</strong>.${purpose === 'reset' && ' Every browser signed in to this account will be signed out.'}</p>
${errorBox(error)}
<form class="stack" method="post" action="/dashboard/set-password">${csrfField(csrf)}
<input type="hidden" name="token" value="${token}">
<input type="email" name="email" autocomplete="username" value="${email}" hidden>
<label>New password <span class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters and hard to guess: a few unrelated words make a good one.</span><input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="password-hint"></label>
<label>The same password again<input type="password" name="confirm" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
<button type="submit">Set password</button>
</form>`,
  );
}

export function renderLinkUnusablePage(): SafeHtml {
  return shell(
    'Link no longer works',
    html`<h1>This link no longer works</h1>
<p>A link to set a password works once: for ${LINK_VALID_HOURS} hours when it came with a new account or an invitation, for ${RESET_LINK_VALID_MINUTES} minutes when it was asked for with "Forgot your password?".</p>
<p>Ask for a new link, or ask whoever made your account.</p>
<p class="actions"><a href="/dashboard/forgot-password">Ask for a new link</a><a href="/dashboard/login">Go to sign in</a></p>`,
  );
}

export interface EnrolmentState {
  secret: string;
  /** The QR code of the otpauth URI, as an SVG data URL. */
  qrDataUrl: string;
  error: string | null;
}

export function renderTwoFactorSetupPage(viewer: Viewer, state: EnrolmentState): SafeHtml {
  return shell(
    'Two-factor sign-in',
    html`<h1>Two-factor sign-in</h1>
<p>Two-factor sign-in is <strong>off</strong>. Turn it on to ask for a code from your phone after your password.</p>
${errorBox(state.error)}
<h2>1. Add Lipira to your authenticator app</h2>
<p>Scan this code, or type the key below into the app.</p>
<img class="qr" src="${state.qrDataUrl}" alt="QR code for your authenticator app" width="200" height="200">
<p>Key: <span class="secret">${state.secret}</span></p>
<h2>2. Confirm with a code</h2>
<form class="stack" method="post" action="/dashboard/settings/two-factor">${csrfField(viewer.csrf)}
<input type="hidden" name="action" value="enable">
<input type="hidden" name="secret" value="${state.secret}">
<label>Code from the app<input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required></label>
<button type="submit">Turn on two-factor sign-in</button>
</form>`,
    { viewer, wide: false },
  );
}

/** A form of the two-factor page that a current code from the app proves. */
function codeForm(viewer: Viewer, action: string, label: string, button: SafeHtml): SafeHtml {
  return html`<form class="stack" method="post" action="/dashboard/settings/two-factor">${csrfField(viewer.csrf)}
<input type="hidden" name="action" value="${action}">
<label>${label}<input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required></label>
${button}
</form>`;
}

export function renderTwoFactorOnPage(viewer: Viewer, state: { error: string | null; codesLeft: number }): SafeHtml {
  const left =
    state.codesLeft === 0
      ? html`You have <strong>no recovery codes</strong> left: make new ones, so that losing your phone does not lock you out.`
      : html`<strong>${state.codesLeft} of ${RECOVERY_CODE_COUNT}</strong> recovery codes are left. Each works once, in place of a code from the app.`;
  return shell(
    'Two-factor sign-in',
    html`<h1>Two-factor sign-in</h1>
<p>Two-factor sign-in is <strong>on</strong>: every sign-in asks for a code from your authenticator app.</p>
${errorBox(state.error)}
<h2>Recovery codes</h2>
<p>${left}</p>
<p class="muted">New codes replace every earlier one, used or not; they are shown once.</p>
${codeForm(viewer, 'regenerate', 'Code from the app, to make new codes', html`<button type="submit" class="secondary">Make new recovery codes</button>`)}
<h2>Turn it off</h2>
<p class="muted">Your recovery codes are deleted with it.</p>
${codeForm(viewer, 'disable', 'Current code from the app', html`<button type="submit" class="danger">Turn off two-factor sign-in</button>`)}`,
    { viewer, wide: false },
  );
}

export function renderTooManyPage(): SafeHtml {
  return shell(
    'Too many tries',
    html`<h1>Too many failed sign-ins</h1>
<p>Too many sign-ins failed from your network. Wait 15 minutes and try again.</p>`,
  );
}
