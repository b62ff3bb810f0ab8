/** The signed-in user's own account: who they are, their two-factor sign-in, their sessions and recent sign-ins. */
import { formatHumanDate } from '../../shared/time.ts';
import type { SignIn } from '../../users/sign-in-repository.ts';
import { SHOWN_SIGN_INS } from '../../users/sign-in-history.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { postButton, shell, table, type Viewer } from '../layout.ts';

export interface AccountView {
  viewer: Viewer;
  /** The user's own team (not the merchant an operator acts for); null for an operator. */
  teamName: string | null;
  twoFactor: boolean;
  signIns: SignIn[];
  /** Which of them were made from the browser showing the page. */
  thisBrowser: (signIn: SignIn) => boolean;
  timeZone: string;
}

export function renderAccountPage(view: AccountView): SafeHtml {
  const { viewer } = view;
  const rows = view.signIns.map((signIn) => [
    formatHumanDate(signIn.created_at, view.timeZone),
    signIn.address,
    html`${signIn.browser}${view.thisBrowser(signIn) && html` <span class="muted">(this browser)</span>`}`,
  ]);
  const body = html`<h1>Your account</h1>
<dl class="facts">
<dt>Email</dt><dd>${viewer.email}</dd>
<dt>Role</dt><dd>${viewer.role}</dd>
<dt>Team</dt><dd>${view.teamName ?? 'The gateway’s operators'}</dd>
<dt>Two-factor sign-in</dt><dd>${view.twoFactor ? 'On' : 'Off'} · <a href="/dashboard/settings/two-factor">${view.twoFactor ? 'Manage' : 'Turn it on'}</a></dd>
</dl>
<section aria-labelledby="sign-ins-heading">
<h2 id="sign-ins-heading">Recent sign-ins</h2>
<p class="muted">Your last ${SHOWN_SIGN_INS} at most, newest first; times are in ${view.timeZone}. A sign-in from a browser not used before for your account is also emailed to you. If one was not you, sign out everywhere below and ask an owner of your team or the gateway’s operator to reset your password.</p>
${table('Your sign-ins, newest first', ['When', 'Address', 'Browser'], rows, 'No sign-ins recorded yet.')}
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Your sessions</h2>
<p>Signing out everywhere ends your sessions in every browser, this one included.</p>
<div class="actions">${postButton('/dashboard/logout-everywhere', viewer.csrf, 'Sign out everywhere', 'secondary')}</div>
</section>`;
  return shell('Your account', body, { viewer });
}
