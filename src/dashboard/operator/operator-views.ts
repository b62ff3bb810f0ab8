import type { MerchantCredentials } from '../../merchants/merchant-service.ts';
import type { Merchant } from '../../merchants/merchant-repository.ts';
import type { InReview } from '../../payments/review-repository.ts';
import type { Mode } from '../../shared/ids.ts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate } from '../../shared/time.ts';
import { copyButton, postButton, shell, table, type Viewer } from '../layout.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import { moneyText } from '../../shared/money.ts';
import type { Backlog, GatewayHealth, MerchantUser, MerchantVolume } from './operator-repository.ts';
import { resetLinks } from '../settings/member-reset-views.ts';

/** The roles an operator may give a merchant's user. */
export const MERCHANT_ROLES = ['owner', 'developer', 'viewer'] as const;

export interface MerchantSummary {
  merchant: Merchant;
  users: number;
  volumes: MerchantVolume[];
}

export interface OperatorView {
  viewer: Viewer;
  /** The merchant the operator acts for now, if any. */
  actingFor: Merchant | null;
  merchants: MerchantSummary[];
  health: GatewayHealth;
  /** The workers of the process serving the page. */
  workers: { running: number; total: number; draining: boolean };
  inReview: InReview[];
  days: number;
  now: number;
  timeZone: string;
  notice: string | null;
}

export const feePercent = (merchant: Merchant): string => `${merchant.fee_bps / 100} %`;

function volumeText(volumes: MerchantVolume[], mode: Mode): HtmlValue {
  const mine = volumes.filter((volume) => volume.mode === mode);
  if (mine.length === 0) return html`—`;
  return joinHtml(
    mine.map((volume) => moneyText(volume.currency, volume.volumeMinor)),
    html`<br>`,
  );
}

function actButton(viewer: Viewer, merchant: Merchant): SafeHtml {
  return postButton('/dashboard/operator/act', viewer.csrf, `Act for ${merchant.name}`, 'secondary', {
    merchant_id: merchant.id,
  });
}

export function actingLine(viewer: Viewer, actingFor: Merchant | null): SafeHtml {
  if (actingFor === null)
    return html`<p class="muted">You act for no merchant: the merchant pages open once you act for one.</p>`;
  return html`<div class="acting"><p>You act for <strong>${actingFor.name}</strong>.</p>${postButton('/dashboard/operator/act', viewer.csrf, 'Stop acting', 'secondary', { merchant_id: '' })}</div>`;
}

export function renderOperatorPage(view: OperatorView): SafeHtml {
  const { viewer } = view;
  const rows = view.merchants.map(({ merchant, users, volumes }) => [
    html`<a href="/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}">${merchant.name}</a>`,
    html`<code>${merchant.id}</code>`,
    merchant.email,
    feePercent(merchant),
    String(users),
    volumeText(volumes, 'live'),
    volumeText(volumes, 'test'),
    actButton(viewer, merchant),
  ]);
  return shell(
    'Operator',
    html`<h1>Gateway operator</h1>
${noticeBox(view.notice)}
${actingLine(viewer, view.actingFor)}
<h2>Merchants</h2>
<p><a class="button-link" href="/dashboard/operator/merchants/new">Create a merchant</a></p>
<div class="merchant-list">${table('Merchants', ['Name', 'Id', 'Email', 'Fee', 'Users', `Live volume (${view.days} days)`, `Test volume (${view.days} days)`, 'Act'], rows, 'No merchants yet: create the first one.')}</div>
<h2>Gateway health</h2>
${healthSection(view)}`,
    { viewer },
  );
}

function backlogCells(name: string, backlog: Backlog, view: OperatorView): HtmlValue[] {
  const waited =
    backlog.dueSince === null
      ? 'nothing due'
      : `due since ${formatHumanDate(backlog.dueSince, view.timeZone)} (${waitedFor(view.now - backlog.dueSince)})`;
  return [name, String(backlog.pending), waited, backlog.failed === null ? html`—` : String(backlog.failed)];
}

/** A wait in words: `40 s`, `12 min`, `3 h`. */
function waitedFor(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

function healthSection(view: OperatorView): SafeHtml {
  const { health } = view;
  const queues = table(
    'Queues',
    ['Queue', 'Pending', 'Oldest due', 'Failed (gave up)'],
    [
      backlogCells('Webhook deliveries', health.deliveries, view),
      backlogCells('Emails', health.emails, view),
      backlogCells('Payments and payouts awaiting the provider', health.charges, view),
    ],
    'No queues.',
  );
  const review = view.inReview.map((row) => [
    row.kind,
    html`<code>${row.reference}</code>`,
    html`<a href="/dashboard/operator/merchants/${encodeURIComponent(row.merchant_id)}"><code>${row.merchant_id}</code></a>`,
    moneyText(row.currency, row.amount_minor),
    row.review_reason,
    formatHumanDate(row.created_at, view.timeZone),
  ]);
  const { workers } = view;
  const own =
    workers.total === 0
      ? html`The process serving this page runs <strong>no workers</strong> (<code>WORKERS=off</code>)`
      : html`Workers of the process serving this page: <strong>${workers.running} of ${workers.total} running</strong>${workers.draining ? ' (shutting down)' : ''}`;
  return html`<p>${own}. Those of other processes are seen through their queues: a delivery or email due long ago means no worker is keeping up, or none runs.</p>
<h3>Queues</h3>
${queues}
<p>Collection balances waiting for the next settlement: <strong>${health.settlementsDue}</strong>.</p>
<h3>Review flags</h3>
<p class="muted">Live payments, payouts and refunds left without a final answer from their provider for too long (as <code>lipira charges review</code> lists them).</p>
${table('Flagged for review', ['Kind', 'Reference', 'Merchant', 'Amount', 'Why', 'Since'], review, 'Nothing to review: every live payment, payout and refund has a final answer or is within its wait.')}`;
}

/** The longest business name the form takes. */
export const MAX_NAME = 100;

export interface NewMerchantForm {
  name: string;
  email: string;
  webhookUrl: string;
  feePercent: string;
}

export function renderNewMerchantPage(viewer: Viewer, form: NewMerchantForm, error: string | null): SafeHtml {
  return shell(
    'Create a merchant',
    html`<h1>Create a merchant</h1>
${errorBox(error)}
<form class="stack" method="post" action="/dashboard/operator/merchants/new">${csrfField(viewer.csrf)}
<label>Business name<input type="text" name="name" required maxlength="${MAX_NAME}" value="${form.name}" autocomplete="organization"></label>
<label>Email<input type="email" name="email" required value="${form.email}" autocomplete="off"></label>
<label>Webhook URL <span class="hint">Optional: where payment events are sent.</span><input type="url" name="webhook_url" value="${form.webhookUrl}" placeholder="https://shop.example/webhooks"></label>
<label>Fee (%) <span class="hint">From 0 to 100, at most two decimals.</span><input type="text" inputmode="decimal" name="fee_percent" required value="${form.feePercent}"></label>
<div class="actions"><button type="submit">Create merchant</button><a href="/dashboard/operator">Cancel</a></div>
</form>`,
    { viewer, wide: false },
  );
}

export function renderMerchantCreatedPage(viewer: Viewer, created: MerchantCredentials): SafeHtml {
  const key = (label: string, value: string) =>
    html`<dt>${label}</dt><dd><span class="secret">${value}</span>${copyButton(value, label.toLowerCase())}</dd>`;
  return shell(
    'Merchant created',
    html`<h1>${created.name} is created</h1>
<p class="warning" role="status">Copy these now and hand them to the merchant safely: the secret keys are stored only as hashes and this page cannot be shown again.</p>
<dl class="facts">
<dt>Merchant id</dt><dd><code>${created.id}</code>${copyButton(created.id, 'merchant id')}</dd>
${key('Test secret key', created.test_secret_key)}
${key('Live secret key', created.live_secret_key)}
${key('Test public key', created.test_public_key)}
${key('Live public key', created.live_public_key)}
${key('Webhook secret', created.webhook_secret)}
</dl>
<div class="actions"><a href="/dashboard/operator/merchants/${encodeURIComponent(created.id)}">Its page: fees and users</a><a href="/dashboard/operator">All merchants</a></div>`,
    { viewer },
  );
}

export interface OperatorMerchantView {
  viewer: Viewer;
  merchant: Merchant;
  users: MerchantUser[];
  timeZone: string;
  notice: string | null;
  /** Why a reset of one of its users was refused. */
  error: string | null;
  fee: { value: string; error: string | null };
  user: { email: string; role: string; error: string | null };
}

export function renderOperatorMerchantPage(view: OperatorMerchantView): SafeHtml {
  const { viewer, merchant } = view;
  const userRows = view.users.map((user) => [
    html`${user.email}${user.disabled && html` <span class="status status-disabled">Disabled</span>`}`,
    user.role,
    user.passwordSet ? 'set' : 'link sent, not used yet',
    user.twoFactor ? 'on' : 'off',
    formatHumanDate(user.createdAt, view.timeZone),
    user.role === 'removed'
      ? html`—`
      : resetLinks(
          `/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}/users/${encodeURIComponent(user.id)}`,
          user.email,
          user.twoFactor,
        ),
  ]);
  const roles = MERCHANT_ROLES.map(
    (role) => html`<option value="${role}"${view.user.role === role && ' selected'}>${role}</option>`,
  );
  return shell(
    merchant.name,
    html`<p><a href="/dashboard/operator">← All merchants</a></p>
<h1>${merchant.name}</h1>
${noticeBox(view.notice)}${errorBox(view.error)}
<dl class="facts">
<dt>Id</dt><dd><code>${merchant.id}</code>${copyButton(merchant.id, 'merchant id')}</dd>
<dt>Email</dt><dd>${merchant.email}</dd>
<dt>Webhook URL</dt><dd>${merchant.webhook_url === null ? 'none' : merchant.webhook_url}</dd>
<dt>Fee</dt><dd>${feePercent(merchant)}</dd>
<dt>Created</dt><dd>${formatHumanDate(merchant.created_at, view.timeZone)}</dd>
</dl>
<div class="actions">${actButton(viewer, merchant)}</div>
<h2>Fees</h2>
${errorBox(view.fee.error)}
<form class="stack narrow" method="post" action="/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}/fees">${csrfField(viewer.csrf)}
<label>Fee (%) <span class="hint">Taken from each successful payment; from 0 to 100, at most two decimals. Applies to money collected from now on.</span><input type="text" inputmode="decimal" name="fee_percent" required value="${view.fee.value}"></label>
<div><button type="submit">Save the fee</button></div>
</form>
<h2>Users</h2>
${table(`Users of ${merchant.name}`, ['Email', 'Role', 'Password', 'Two-factor', 'Created', 'Sign-in resets'], userRows, 'No users yet.')}
<h3>Add a user</h3>
${errorBox(view.user.error)}
<form class="stack narrow" method="post" action="/dashboard/operator/merchants/${encodeURIComponent(merchant.id)}/users">${csrfField(viewer.csrf)}
<label>Email <span class="hint">A one-time link to set a password is emailed there.</span><input type="email" name="email" required value="${view.user.email}" autocomplete="off"></label>
<label>Role<select name="role">${roles}</select></label>
<div><button type="submit">Add the user</button></div>
</form>`,
    { viewer },
  );
}
