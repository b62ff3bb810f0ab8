/**
 * The developers' page: the mode's API keys, the webhook settings, and the delivery log. A new
 * secret (an API key's or the webhook's) is shown by its own page, once, straight from the POST
 * that made it: it never travels in a URL, and an API key's is never stored in clear for showing
 * again (a webhook secret is stored to sign with, and never shown again either).
 */
import type { ApiKey } from '../../merchants/merchant-repository.ts';
import { html, joinHtml, type SafeHtml } from '../../web/html.ts';
import { formatHumanDate, parseDuration } from '../../shared/time.ts';
import { DEFAULT_WEBHOOK_SECRET_OVERLAP_MS } from '../../merchants/merchant-service.ts';
import type { Attempt, Delivery } from '../../events/delivery-repository.ts';
import { confirmForm, copyButton, factList, postButton, shell, statusBadge, statusWord, table } from '../layout.ts';
import { csrfField, errorBox, noticeBox } from '../../web/components.ts';
import type { MerchantPage, Query } from '../page-context.ts';

export interface DeliveryRow {
  delivery: Delivery & { payload: string };
  last: Attempt | null;
}

export interface DevelopersState {
  keys: ApiKey[];
  webhookUrl: string | null;
  /** Until when the mode's previous webhook secret still signs beside the new one; null when no roll's overlap runs. */
  overlapEnd: number | null;
  /** The URL as typed, when it was refused. */
  typedUrl?: string;
  error?: string | null;
  notice?: string | null;
  filter: { status: string; tx_ref: string; charge_id: string };
  deliveries: DeliveryRow[];
  page: number;
  pages: number;
  timeZone: string;
  /** Said in live mode while no live payment method is set up (`liveNoticeBox`); empty otherwise. */
  liveNotice: SafeHtml;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export function renderDevelopersPage(page: MerchantPage, state: DevelopersState): SafeHtml {
  const body = html`<h1>Developers</h1>
${state.liveNotice}${errorBox(state.error)}${noticeBox(state.notice)}
${keysSection(page, state)}
${webhookSection(page, state)}
${deliverySection(page, state)}`;
  return shell('Developers', body, { viewer: page.viewer });
}

function keysSection(page: MerchantPage, state: DevelopersState): SafeHtml {
  const when = (at: number) => formatHumanDate(at, state.timeZone);
  const rows = state.keys.map((key) => [
    key.kind === 'public' ? 'Public' : 'Secret',
    // A secret key is shown by its first characters only: nothing worth copying.
    html`<code class="key">${key.visible}</code>${key.kind === 'public' && copyButton(key.visible, `${page.mode} public key`)}`,
    when(key.created_at),
    key.expires_at === null ? 'No end' : `Stops ${when(key.expires_at)}`,
  ]);
  const roll = page.may('keys')
    ? html`<form class="stack" method="post" action="/dashboard/developers/keys/roll">${csrfField(page.csrf)}
<label>Old secret keys keep working for <span class="hint" id="overlap-hint">0 stops them now; e.g. 10m, 1h, 24h or 7d gives your servers time to switch.</span><input type="text" name="overlap" value="24h" required maxlength="12" aria-describedby="overlap-hint"></label>
<button type="submit">Roll the ${page.mode} secret key</button>
</form>`
    : '';
  return html`<section aria-labelledby="keys-heading">
<h2 id="keys-heading">API keys (${page.mode} mode)</h2>
<p class="muted">A secret key is shown in full only once, when it is made; here you see its first characters. The public key only creates checkout sessions.</p>
${table(`${page.mode} API keys`, ['Kind', 'Key', 'Made', 'Stops'], rows, 'No keys.')}
${roll}
</section>`;
}

function webhookSection(page: MerchantPage, state: DevelopersState): SafeHtml {
  const current = state.webhookUrl ? html`<code class="key">${state.webhookUrl}</code>` : 'none: no webhooks are sent';
  const forms = page.may('webhooks')
    ? html`<form class="stack" method="post" action="/dashboard/developers/webhook">${csrfField(page.csrf)}
<label>Webhook URL <span class="hint" id="url-hint">Leave empty to stop sending webhooks.</span><input type="url" name="url" value="${state.typedUrl ?? state.webhookUrl ?? ''}" maxlength="2000" aria-describedby="url-hint"></label>
<button type="submit">Save the webhook URL</button>
</form>
<div class="actions"><a class="button" href="/dashboard/developers/webhook/secret">Roll the ${page.mode} webhook secret</a>${postButton('/dashboard/developers/webhook/test', page.csrf, `Send a test event (${page.mode} mode)`, 'secondary')}</div>`
    : '';
  return html`<section aria-labelledby="webhook-heading">
<h2 id="webhook-heading">Webhooks</h2>
<p>Events of both modes go to: ${current}. Each is signed with its mode's webhook secret: test and live have one each.</p>
${state.overlapEnd !== null && overlapNotice(page, state.overlapEnd, state.timeZone)}
${forms}
</section>`;
}

const overlapNotice = (page: MerchantPage, until: number, timeZone: string) =>
  html`<p class="warning overlap">A webhook secret roll's overlap is running: until ${formatHumanDate(until, timeZone)}, ${page.mode}-mode webhooks are signed with both the new and the previous secret. Switch your server to the new one before then.</p>`;

/** How long a rolled webhook secret may keep signing beside the new one: the choices the roll offers. */
const WEBHOOK_SECRET_OVERLAPS = [
  { value: '0', label: 'No overlap: it stops now' },
  { value: '1h', label: '1 hour' },
  { value: '24h', label: '24 hours' },
  { value: '3d', label: '3 days' },
  { value: '7d', label: '7 days' },
] as const;

/** The overlap a roll's form chose, in milliseconds; null for anything but one of its choices. */
export function webhookSecretOverlapOf(value: string | undefined): number | null {
  const choice = WEBHOOK_SECRET_OVERLAPS.find((option) => option.value === value);
  return choice ? parseDuration(choice.value) : null;
}

export interface RollWebhookSecretState {
  webhookUrl: string | null;
  overlapEnd: number | null;
  timeZone: string;
  error: string | null;
}

/** The confirmation asked before the mode's webhook secret is rolled, where the overlap is chosen (24 hours unless changed). */
export function renderRollWebhookSecretPage(page: MerchantPage, state: RollWebhookSecretState): SafeHtml {
  const other = page.mode === 'test' ? 'live' : 'test';
  const choices = WEBHOOK_SECRET_OVERLAPS.map(
    (option) =>
      html`<label class="radio"><input type="radio" name="overlap" value="${option.value}"${webhookSecretOverlapOf(option.value) === DEFAULT_WEBHOOK_SECRET_OVERLAP_MS && ' checked'}> ${option.label}</label>`,
  );
  const facts = factList([
    ['Mode', `${page.mode}: the ${other} secret is not changed`],
    ['Webhooks go to', state.webhookUrl ?? 'nowhere yet: no webhook URL is set'],
    ...(state.overlapEnd === null
      ? []
      : [['Overlap running until', formatHumanDate(state.overlapEnd, state.timeZone)] as [string, string]]),
  ]);
  const body = html`<h1>Roll the ${page.mode} webhook secret?</h1>
${errorBox(state.error)}
${facts}
<p>A new secret is made and shown to you once. Every ${page.mode}-mode webhook from then on, retries included, is signed with it. Your server must then verify with the new secret.</p>
${state.overlapEnd !== null && html`<p class="warning">An earlier roll's overlap is still running: rolling again ends it, and the secret before the current one stops signing now.</p>`}
${confirmForm({
  action: '/dashboard/developers/webhook/secret',
  csrf: page.csrf,
  label: `Roll the ${page.mode} webhook secret`,
  choices: html`<fieldset class="choice"><legend>The current secret keeps signing beside the new one for</legend>
${choices}
</fieldset>
<p class="hint">During the overlap each webhook's <code>webhook-signature</code> header carries two signatures, one with each secret, and a Standard Webhooks receiver accepts either; PayChangu's <code>Signature</code> header holds one, made with the new secret.</p>`,
  back: '/dashboard/developers',
})}`;
  return shell(`Roll the ${page.mode} webhook secret`, body, { viewer: page.viewer });
}

function deliverySection(page: MerchantPage, state: DevelopersState): SafeHtml {
  const { filter } = state;
  const options = ['', ...DELIVERY_STATUSES].map(
    (status) =>
      html`<option value="${status}"${status === filter.status && ' selected'}>${status === '' ? 'Any' : statusWord(status)}</option>`,
  );
  const link = (to: number, label: string) =>
    html`<a href="/dashboard/developers?${new URLSearchParams({ ...filter, page: String(to) }).toString()}#deliveries-heading">${label}</a>`;
  const pager =
    state.pages > 1
      ? html`<div class="actions">${state.page > 1 ? link(state.page - 1, 'Newer') : ''} Page ${state.page} of ${state.pages} ${state.page < state.pages ? link(state.page + 1, 'Older') : ''}</div>`
      : '';
  const log =
    state.deliveries.length === 0
      ? html`<p class="muted">No deliveries match.</p>`
      : html`<ol class="deliveries">${joinHtml(
          state.deliveries.map((row) => deliveryItem(page, row, state.timeZone)),
          '\n',
        )}</ol>`;
  return html`<section aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Webhook deliveries (${page.mode} mode)</h2>
<form class="filters" method="get" action="/dashboard/developers">
<label>Status<select name="status">${options}</select></label>
<label>tx_ref<input type="text" name="tx_ref" value="${filter.tx_ref}" maxlength="100"></label>
<label>Charge id<input type="text" name="charge_id" value="${filter.charge_id}" maxlength="100"></label>
<button type="submit" class="secondary">Filter</button>
</form>
${log}
${pager}
</section>`;
}

/**
 * One delivery as a block of its own rather than a table row: its exchange, once opened, takes
 * the log's whole width, which a table's cell never has on a phone.
 */
function deliveryItem(page: MerchantPage, { delivery, last }: DeliveryRow, timeZone: string): SafeHtml {
  const tries = `${delivery.attempts} ${delivery.attempts === 1 ? 'try' : 'tries'}`;
  const retry = page.may('webhooks')
    ? html`<div class="actions">${postButton(`/dashboard/deliveries/${delivery.id}/retry`, page.csrf, 'Retry', 'secondary', { back: '/dashboard/developers' })}</div>`
    : '';
  const reference = delivery.tx_ref ?? delivery.charge_id;
  return html`<li class="delivery">
<p><strong>${delivery.event_type}</strong> ${statusBadge(delivery.status)} <span class="muted">${tries}</span></p>
<p class="muted">${formatHumanDate(delivery.created_at, timeZone)}${reference ? html` · for <span class="ref">${reference}</span>` : ''} · <span class="ref">${delivery.id}</span></p>
${exchange(delivery, last, timeZone)}
${retry}
</li>`;
}

/** What was sent and what came back on the last try, folded away; the request body laid out to be read. */
function exchange(delivery: Delivery & { payload: string }, last: Attempt | null, timeZone: string): SafeHtml {
  if (!last) return html`<p class="muted">Not tried yet</p>`;
  const answer =
    last.status_code === null
      ? `No answer: ${last.error ?? 'unknown error'}`
      : `HTTP ${last.status_code} in ${last.latency_ms} ms`;
  return html`<details><summary>Last try: ${answer}</summary>
<p class="muted">${formatHumanDate(last.attempted_at, timeZone)}, POST <span class="ref">${delivery.url}</span></p>
<p>Request body</p><pre class="exchange">${prettyJson(delivery.payload)}</pre>
${last.response_body === null ? html`<p class="muted">No response body kept (none, or from a loopback address, whose answers are never stored).</p>` : html`<p>Response body</p><pre class="exchange">${prettyJson(last.response_body)}</pre>`}
</details>`;
}

/** JSON indented, one field a line; anything else (a receiver's HTML or text) as it came. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The one time a new secret is shown. */
export function renderNewSecretPage(
  page: MerchantPage,
  what: { title: string; secret: string; lines: string[] },
): SafeHtml {
  return shell(
    what.title,
    html`<h1>${what.title}</h1>
<p class="warning" role="status">Copy it now: it is not shown again. Select it and copy (Ctrl+C or ⌘C), then keep it in your server's secret settings.</p>
<p><code class="secret new-secret">${what.secret}</code>${copyButton(what.secret, what.title.toLowerCase())}</p>
${joinHtml(
  what.lines.map((line) => html`<p>${line}</p>`),
  '\n',
)}
<p><a href="/dashboard/developers">Back to Developers</a></p>`,
    { viewer: page.viewer },
  );
}

/** Filters as the query gave them: anything unknown is ignored rather than refused. */
export function deliveryFilter(query: Query): DevelopersState['filter'] {
  const status = (DELIVERY_STATUSES as readonly string[]).includes(query.status ?? '') ? query.status! : '';
  return {
    status,
    tx_ref: (query.tx_ref ?? '').trim().slice(0, 100),
    charge_id: (query.charge_id ?? '').trim().slice(0, 100),
  };
}
