import type { App } from '../../http/app-type.ts';
import { formatHumanDate } from '../../shared/time.ts';
import type { AuditAction } from '../../users/audit.ts';
import { html, joinHtml, type SafeHtml } from '../../web/html.ts';
import { shell, table } from '../layout.ts';
import { PAGE, type DashboardDeps, type PageGuard, type Query } from '../page-context.ts';
import { listAuditEntries, type AuditCursor, type AuditRow } from './audit-repository.ts';

const PER_PAGE = 50;

const ACTIONS: Record<AuditAction, string> = {
  'user.create': 'Added a team member',
  'user.password_set': 'Set a password',
  'user.password_reset_request': 'Asked for a link to reset a forgotten password',
  'user.password_reset': 'Reset a forgotten password (signed out everywhere)',
  'user.two_factor_on': 'Turned two-factor sign-in on',
  'user.two_factor_off': 'Turned two-factor sign-in off',
  'user.recovery_codes_new': 'Made new two-factor recovery codes',
  'user.recovery_code_used': 'Signed in with a recovery code',
  'user.signed_out_everywhere': 'Signed out everywhere',
  'user.locked': 'Locked after failed sign-ins',
  'user.role_change': 'Changed a team member’s role',
  'user.remove': 'Removed a team member',
  'user.invite': 'Invited someone to the team',
  'user.invitation_cancel': 'Cancelled an invitation',
  'user.invitation_accept': 'Accepted an invitation and joined the team',
  'user.two_factor_reset': 'Reset a team member’s two-factor sign-in',
  'user.password_reset_by_other': 'Reset a user’s password (a set-password link sent)',
  'user.disable': 'Disabled a user',
  'user.enable': 'Enabled a user',
  'refund.create': 'Refunded a payment',
  'payout.create': 'Sent a payout',
  'payment_link.create': 'Made a payment link',
  'payment_link.change': 'Changed a payment link',
  'payout.automatic': 'Sent an automatic payout',
  'payout_schedule.save': 'Set up or changed automatic payouts',
  'payout_schedule.stop': 'Stopped automatic payouts',
  'key.roll': 'Rolled a secret API key',
  'webhook.url_change': 'Changed the webhook URL',
  'webhook.secret_roll': 'Rolled the webhook secret',
  'webhook.test_event': 'Sent a test webhook event',
  'webhook.retry': 'Retried a webhook delivery',
  'merchant.create': 'Created the account',
  'merchant.fees': 'Changed the fees',
  'merchant.settings': 'Changed the settings',
  'operator.act_for': 'Acted for the account (operator)',
};

/** Who made a change no user made: the command line, unless the gateway itself did. */
const BY_NOBODY: Partial<Record<string, string>> = { 'payout.automatic': 'automatic payouts' };

/** `1732550000000.aud_x`: the last entry of a page, as the next page's link names it. */
function parseCursor(text: string | undefined): AuditCursor | null {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{1,100})$/.exec(text ?? '');
  return match ? { createdAt: Number(match[1]), id: match[2]! } : null;
}

/** The detail as `key: value` lines; it never holds a secret (see `recordAudit`). */
function detailText(detail: string | null): SafeHtml | string {
  if (!detail) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return detail;
  }
  if (typeof parsed !== 'object' || parsed === null) return String(parsed);
  return joinHtml(
    Object.entries(parsed).map(([key, value]) => `${key.replaceAll('_', ' ')}: ${valueText(value)}`),
    html`<br>`,
  );
}

/** A change's `{from, to}` as `old → new`; empty and null as "none". */
function valueText(value: unknown): string {
  if (value === null || value === '') return 'none';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && 'from' in value && 'to' in value)
    return `${valueText(value.from)} → ${valueText(value.to)}`;
  return JSON.stringify(value);
}

/** Every change to money, secrets and users of the merchant, newest first; both modes (a change names its mode). */
export function registerAuditPages(app: App, { config, database }: DashboardDeps, guard: PageGuard): void {
  app.get<{ Querystring: Query }>('/dashboard/audit', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const cursor = parseCursor(request.query.after);
    const found = await listAuditEntries(database.db, page.merchant.id, cursor, PER_PAGE + 1);
    const entries = found.slice(0, PER_PAGE);
    const row = (entry: AuditRow) => [
      formatHumanDate(entry.created_at, config.timeZone),
      entry.user_email ?? html`<span class="muted">${BY_NOBODY[entry.action] ?? 'command line'}</span>`,
      ACTIONS[entry.action as AuditAction] ?? entry.action,
      html`<code>${entry.subject}</code>`,
      detailText(entry.detail),
    ];
    const last = entries.at(-1);
    const next =
      found.length > PER_PAGE &&
      last &&
      html`<a href="/dashboard/audit?after=${last.created_at}.${encodeURIComponent(last.id)}">Older entries</a>`;
    const body = html`<h1>Audit log</h1>
<p class="muted">Every change to money, secrets and the team, in both modes, newest first. Times are in ${config.timeZone}.</p>
${table('Audit log', ['When', 'Who', 'What', 'Subject', 'Detail'], entries.map(row), cursor ? 'No older entries.' : 'Nothing has been changed yet.')}
<p class="actions">${cursor && html`<a href="/dashboard/audit">Newest entries</a>`}${next}</p>`;
    return guard.html(reply, 200, shell('Audit log', body, { viewer: page.viewer }));
  });
}
