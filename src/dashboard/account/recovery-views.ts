/** Getting back into an account: the forgotten-password pages, and recovery codes shown once. */
import { RESET_LINK_VALID_MINUTES } from '../../users/user-service.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { shell, type Viewer } from '../layout.ts';

export function renderForgotPasswordPage(csrf: string, state: { email: string; error: string | null }): SafeHtml {
  return shell(
    'Forgot your password?',
    html`<h1>Forgot your password?</h1>
<p>Type the address you sign in with. If it has a dashboard account, we email it a link to choose a new password: it works once, for ${RESET_LINK_VALID_MINUTES} minutes, and signs the account out of every browser.</p>
${errorBox(state.error)}
<form class="stack" method="post" action="/dashboard/forgot-password">${csrfField(csrf)}
<label>Email<input type="email" name="email" autocomplete="username" required maxlength="254" value="${state.email}"></label>
<button type="submit">Email me a link</button>
</form>
<p class="actions"><a href="/dashboard/login">Back to sign in</a></p>`,
  );
}

/** The one answer to the form, whether or not the address has an account. */
export function renderResetSentPage(): SafeHtml {
  return shell(
    'Check your email',
    html`<h1>Check your email</h1>
${noticeBox('If the address you typed has a dashboard account, an email with a link to choose a new password is on its way.')}
<p>The link works once, for ${RESET_LINK_VALID_MINUTES} minutes. Nothing after a few minutes? Look in your spam folder, check the address, or ask again.</p>
<p class="actions"><a href="/dashboard/forgot-password">Ask again</a><a href="/dashboard/login">Back to sign in</a></p>`,
  );
}

export function renderTooManyResetsPage(): SafeHtml {
  return shell(
    'Too many requests',
    html`<h1>Too many requests</h1>
<p>Too many password links were asked for from your network. Wait a few minutes and try again.</p>
<p class="actions"><a href="/dashboard/login">Back to sign in</a></p>`,
  );
}

/** The text file the codes download as: the codes, one a line, and what they are. */
function codesFile(email: string, codes: string[]): string {
  return [
    `Lipira dashboard recovery codes for ${email}`,
    'Each code works once, in place of a code from your authenticator app.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/**
 * Recovery codes, shown once: the answer to turning two-factor sign-in on or to making new codes,
 * never a page a link leads to again. The download is a data: URL, so the codes go nowhere but
 * the browser; the copy button needs the dashboard's script and is hidden until it runs.
 */
export function renderRecoveryCodesPage(viewer: Viewer, state: { codes: string[]; notice: string }): SafeHtml {
  const file = `data:text/plain;charset=utf-8,${encodeURIComponent(codesFile(viewer.email, state.codes))}`;
  return shell(
    'Your recovery codes',
    html`<h1>Save your recovery codes</h1>
${noticeBox(state.notice)}
<p>If you lose your phone, sign in with one of these codes in place of a code from the app. Each works once. Keep them somewhere safe, apart from your password: <strong>they are shown only now</strong>.</p>
<ol class="codes" aria-label="Recovery codes">${state.codes.map((code) => html`<li><code>${code}</code></li>`)}</ol>
<p class="actions"><a class="button" href="${file}" download="lipira-recovery-codes.txt">Download as a text file</a><button type="button" class="copy secondary" data-copy="${state.codes.join('\n')}" aria-label="Copy the codes" hidden>Copy the codes</button></p>
<p><a href="/dashboard/settings/two-factor">I have saved my codes</a></p>`,
    { viewer, wide: false },
  );
}
