/** The settings page: the business as customers see it, and the team. */
import { html, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { LINK_VALID_HOURS, TEAM_ROLES } from '../../users/user-service.ts';
import { confirmForm, factList, shell, table } from '../layout.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import type { MerchantPage } from '../page-context.ts';
import type { OpenInvitation, TeamMember } from './team-repository.ts';
import { resetLinks } from './member-reset-views.ts';

export interface BusinessForm {
  name: string;
  logoUrl: string;
  brandColor: string;
  receipts: boolean;
}

export interface SettingsState {
  business: BusinessForm;
  team: TeamMember[];
  invitations: OpenInvitation[];
  /** The gateway's, for the invitations' times. */
  timeZone: string;
  invite: { email: string; role: string };
  error?: string | null;
  notice?: string | null;
}

export function renderSettingsPage(page: MerchantPage, state: SettingsState): SafeHtml {
  const body = html`<h1>Settings</h1>
${errorBox(state.error)}${noticeBox(state.notice)}
${businessSection(page, state.business)}
${teamSection(page, state)}
<section aria-labelledby="security-heading">
<h2 id="security-heading">Your sign-in</h2>
<p><a href="/dashboard/settings/two-factor">Two-factor sign-in</a>: ask for a code from your phone after your password.</p>
</section>`;
  return shell('Settings', body, { viewer: page.viewer });
}

function businessSection(page: MerchantPage, business: BusinessForm): SafeHtml {
  if (!page.may('settings')) {
    return html`<section aria-labelledby="business-heading">
<h2 id="business-heading">Business</h2>
<dl class="facts"><dt>Name</dt><dd>${business.name}</dd><dt>Logo</dt><dd>${business.logoUrl || 'none'}</dd><dt>Brand colour</dt><dd>${business.brandColor || 'none'}</dd><dt>Receipts</dt><dd>${business.receipts ? 'on' : 'off'}</dd></dl>
</section>`;
  }
  return html`<section aria-labelledby="business-heading">
<h2 id="business-heading">Business</h2>
<p class="muted">Shown on the hosted checkout page and on receipts, unless a checkout session brings its own logo.</p>
<form class="stack" method="post" action="/dashboard/settings">${csrfField(page.csrf)}
<label>Business name<input type="text" name="name" value="${business.name}" required maxlength="100"></label>
<label>Logo URL <span class="hint" id="logo-hint">An https:// address of a square image. Leave empty for your initial.</span><input type="url" name="logo_url" value="${business.logoUrl}" maxlength="2000" aria-describedby="logo-hint"></label>
<label>Brand colour <span class="hint" id="colour-hint">As #rrggbb; used for a thin accent bar, never for text.</span><input type="text" name="brand_color" value="${business.brandColor}" maxlength="7" pattern="#[0-9a-fA-F]{6}" aria-describedby="colour-hint"></label>
<label class="check"><input type="checkbox" name="receipts" value="on"${business.receipts ? ' checked' : ''}> Email receipts to customers and to you</label>
<button type="submit">Save settings</button>
</form>
</section>`;
}

function teamSection(page: MerchantPage, state: SettingsState): SafeHtml {
  const manage = page.may('team');
  const rows = state.team.map((member) => {
    const you = member.id === page.user.id;
    const cells: HtmlValue[] = [
      html`${member.email}${you && html` <span class="muted">(you)</span>`}${member.invited && html` <span class="muted">no password yet</span>`}${member.disabled && html` <span class="status status-disabled">Disabled</span>`}`,
      member.role,
      member.two_factor ? 'On' : 'Off',
    ];
    if (manage)
      cells.push(
        roleForm(page, member),
        you
          ? html`<a href="/dashboard/account">Your account</a>`
          : resetLinks(`/dashboard/settings/team/${member.id}`, member.email, member.two_factor),
        html`<a href="/dashboard/settings/team/${member.id}/remove" aria-label="Remove ${member.email} from the team">Remove</a>`,
      );
    return cells;
  });
  const headings = manage
    ? ['Email', 'Role', 'Two-factor', 'Change role', 'Sign-in resets', 'Remove from the team']
    : ['Email', 'Role', 'Two-factor'];
  const invite = manage
    ? html`<h3>Invite someone</h3>
<p class="muted">They get an email with a link to set their password (it works once, for ${LINK_VALID_HOURS} hours).</p>
<form class="stack" method="post" action="/dashboard/settings/team/invite">${csrfField(page.csrf)}
<label>Email<input type="email" name="email" value="${state.invite.email}" required maxlength="254"></label>
<label>Role<select name="role">${roleOptions(state.invite.role || 'viewer')}</select></label>
<button type="submit">Send the invitation</button>
</form>`
    : '';
  return html`<section aria-labelledby="team-heading">
<h2 id="team-heading">Team</h2>
<p class="muted">Owners do everything; developers manage keys and webhooks; viewers only look.</p>
${table('Team members', headings, rows, 'No team members.')}
${invitedList(page, state)}
${invite}
</section>`;
}

/** Open invitations: until accepted, cancelled, or their link expires (then the address may be invited again). */
function invitedList(page: MerchantPage, state: SettingsState): SafeHtml {
  if (state.invitations.length === 0) return html``;
  const manage = page.may('team');
  const rows = state.invitations.map((invitation) => {
    const cells: HtmlValue[] = [
      invitation.email,
      invitation.role,
      invitation.invited_by_email,
      formatHumanDate(invitation.created_at, state.timeZone),
    ];
    if (manage)
      cells.push(
        html`<a href="/dashboard/settings/team/invitations/${invitation.id}/cancel" aria-label="Cancel the invitation of ${invitation.email}">Cancel</a>`,
      );
    return cells;
  });
  const headings = manage
    ? ['Email', 'Role', 'Invited by', 'When', 'Cancel the invitation']
    : ['Email', 'Role', 'Invited by', 'When'];
  return html`<h3>Invited</h3>
<p class="muted">Each invitation's link works for ${LINK_VALID_HOURS} hours; once it expires the invitation leaves this list and the address can be invited again.</p>
${table('Invited', headings, rows, 'No open invitations.')}`;
}

/** The confirmation asked before an invitation is cancelled. */
export function renderCancelInvitationPage(page: MerchantPage, invitation: OpenInvitation, timeZone: string): SafeHtml {
  const body = html`<h1>Cancel this invitation?</h1>
${factList([
  ['Email', invitation.email],
  ['Role', invitation.role],
  ['Invited by', invitation.invited_by_email],
  ['When', formatHumanDate(invitation.created_at, timeZone)],
])}
<p>The link in the invitation will stop working. You can invite the address again afterwards.</p>
${confirmForm({
  action: `/dashboard/settings/team/invitations/${invitation.id}/cancel`,
  csrf: page.csrf,
  label: 'Cancel the invitation',
  back: '/dashboard/settings',
  backLabel: 'Keep it',
})}`;
  return shell('Cancel an invitation', body, { viewer: page.viewer });
}

/** The confirmation asked before a member is taken off the team. */
export function renderRemoveMemberPage(page: MerchantPage, member: TeamMember): SafeHtml {
  const yourself = member.id === page.user.id;
  const body = html`<h1>Remove ${yourself ? 'yourself' : 'this member'} from the team?</h1>
${factList([
  ['Email', html`${member.email}${yourself && html` <span class="muted">(you)</span>`}`],
  ['Role', member.role],
  ['Two-factor', member.two_factor ? 'On' : 'Off'],
])}
<p>${yourself ? 'You are' : 'They are'} signed out everywhere at once, and ${yourself ? 'your' : 'their'} password and sign-in links stop working: the address can no longer sign in to ${page.merchant.name}. The audit log keeps what ${yourself ? 'you' : 'they'} did. You can invite the address again later.</p>
${confirmForm({
  action: `/dashboard/settings/team/${member.id}/remove`,
  csrf: page.csrf,
  label: `Remove ${member.email}`,
  back: '/dashboard/settings',
  backLabel: yourself ? 'Stay on the team' : 'Keep them',
})}`;
  return shell('Remove a team member', body, { viewer: page.viewer });
}

function roleOptions(selected: string): SafeHtml[] {
  return TEAM_ROLES.map((role) => html`<option value="${role}"${role === selected && ' selected'}>${role}</option>`);
}

function roleForm(page: MerchantPage, member: TeamMember): SafeHtml {
  // Named by aria-label: a visually hidden label, positioned absolutely inside the scrolling table, would widen the page on a phone.
  return html`<form class="inline" method="post" action="/dashboard/settings/team/${member.id}/role">${csrfField(page.csrf)}<select name="role" aria-label="Role of ${member.email}">${roleOptions(member.role)}</select> <button type="submit" class="secondary">Change</button></form>`;
}
