/**
 * The dashboard's stylesheet, served at /dashboard/assets/dashboard.css. Kept in a module rather
 * than a .css file beside it: the `lipira` bundle copies only the checkout page's files next to
 * itself. Phones first (360 px and up); focus always visible; text at 4.5:1 contrast or more.
 */
export const DASHBOARD_CSS = `
:root { --accent: #0f766e; --accent-strong: #115e59; --text: #101828; --muted: #475467; --border: #cdd2da; --bg: #f2f4f7; --surface: #fff; --danger: #b42318; --danger-soft: #fef3f2; --ok: #067647; --ok-soft: #e6f6ed; color-scheme: light; }
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; min-height: 100vh; background: var(--bg); color: var(--text); font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; font-size: 16px; line-height: 1.5; }
.top { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between; padding: 12px 16px; background: var(--surface); border-bottom: 1px solid var(--border); }
.brand { font-weight: 700; color: var(--text); text-decoration: none; }
.top nav { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
main { width: 100%; max-width: 480px; margin: 24px auto; padding: 24px 16px; background: var(--surface); border: 1px solid var(--border); border-radius: 12px; }
main.wide { max-width: 1240px; }
@media (max-width: 520px) { main { margin: 0; border-radius: 0; border-left: 0; border-right: 0; } }
h1 { font-size: 1.5rem; margin: 0 0 16px; }
h2 { font-size: 1.125rem; margin: 24px 0 8px; }
p { margin: 0 0 12px; }
.muted { color: var(--muted); }
form.stack { display: grid; gap: 16px; }
label { display: grid; gap: 4px; font-weight: 600; }
.hint { font-weight: 400; color: var(--muted); font-size: 0.875rem; }
input[type=email], input[type=password], input[type=text] { width: 100%; font: inherit; font-size: 16px; padding: 10px 12px; border: 1px solid #8a94a6; border-radius: 8px; background: var(--surface); color: var(--text); }
input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; min-height: 44px; }
button:hover { background: var(--accent-strong); }
button.secondary { background: var(--surface); color: var(--accent-strong); }
button.danger { background: var(--danger); border-color: var(--danger); }
.inline { display: inline; }
a { color: var(--accent-strong); }
.error { padding: 12px; border-radius: 8px; background: var(--danger-soft); color: var(--danger); border: 1px solid #fda29b; }
.notice { padding: 12px; border-radius: 8px; background: var(--ok-soft); color: var(--ok); border: 1px solid #75e0a7; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; padding: 8px; background: var(--bg); border-radius: 6px; }
.qr { display: block; width: 200px; max-width: 100%; height: auto; margin: 8px 0 16px; background: #fff; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 16px; }
ol.codes { margin: 0 0 16px; padding-left: 2.5rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.0625rem; line-height: 1.8; }

.whose { font-weight: 600; color: var(--muted); margin-right: auto; }
.who { color: var(--muted); font-size: 0.875rem; }
.mode { display: flex; gap: 8px; align-items: center; }
.mode-label { font-weight: 700; padding: 2px 8px; border-radius: 999px; }
.mode-test .mode-label { background: #fff4e5; color: #93370d; border: 1px solid #f79009; }
.mode-live .mode-label { background: var(--ok-soft); color: var(--ok); border: 1px solid #75e0a7; }
body.mode-test { border-top: 4px solid #f79009; }
.test-banner p { margin: 0; }
.test-banner { margin: 0; padding: 6px 16px; background: #fff4e5; color: #93370d; font-size: 0.875rem; text-align: center; }
.sections { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 8px 16px; background: var(--surface); border-bottom: 1px solid var(--border); }
.sections a { text-decoration: none; padding: 6px 2px; color: var(--muted); font-weight: 600; }
.sections a[aria-current=page] { color: var(--accent-strong); border-bottom: 3px solid var(--accent); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.table-wrap { overflow-x: auto; margin: 0 0 16px; }
table { width: 100%; border-collapse: collapse; font-size: 0.9375rem; }
th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 0.8125rem; font-weight: 600; background: var(--bg); color: var(--text); }
.status-success, .status-delivered { background: var(--ok-soft); color: var(--ok); }
.status-failed, .status-cancelled, .status-expired, .status-disabled { background: var(--danger-soft); color: var(--danger); }
.status-pending { background: #fff4e5; color: #93370d; }
select, input[type=number], input[type=date], input[type=search], input[type=url], textarea { font: inherit; font-size: 16px; padding: 8px 10px; border: 1px solid #8a94a6; border-radius: 8px; background: var(--surface); color: var(--text); }
form.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin: 0 0 16px; }
form.filters label { font-weight: 600; font-size: 0.875rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; margin: 0 0 16px; }
.card { padding: 12px 16px; border: 1px solid var(--border); border-radius: 10px; }
.card .figure { font-size: 1.375rem; font-weight: 700; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 16px; }
dl.facts dt { color: var(--muted); font-weight: 600; }
dl.facts dd { margin: 0; word-break: break-word; }
.warning { padding: 12px; border-radius: 8px; background: #fff4e5; color: #93370d; border: 1px solid #fec84b; }

/* payouts and balance */
a.button { display: inline-block; font-weight: 600; padding: 10px 16px; border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: #fff; text-decoration: none; }
a.button:hover { background: var(--accent-strong); }
a.cancel { display: inline-block; margin-left: 12px; padding: 10px 4px; }
form.confirm { margin: 16px 0 0; }
form.confirm .hint { margin: 8px 0 0; }
.field { display: grid; gap: 4px; }
.field select { width: 100%; }
.field-error { margin: 0; color: var(--danger); font-size: 0.875rem; }
.payout-form .wallet-fields, .payout-form .bank-fields { display: grid; gap: 16px; }
.payout-form:has(#kind-wallet:checked) .bank-fields, .payout-form:has(#kind-bank:checked) .wallet-fields { display: none; }
a.button.secondary { background: var(--surface); color: var(--accent-strong); }
a.button.secondary:hover { background: var(--bg); }
a.button.danger { background: var(--danger); border-color: var(--danger); }
a.button.danger:hover { background: #912018; }
section.automatic { margin: 0 0 24px; }
.new-recipient { display: grid; gap: 16px; }
fieldset.recipients { flex-direction: column; }
.schedule-form:has(#frequency-daily:checked) .weekday-field, .schedule-form:has(input[name=recipient]:checked:not([value=new])) .new-recipient { display: none; }
fieldset.choice { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 0; padding: 8px 12px 12px; border: 1px solid var(--border); border-radius: 8px; }
fieldset.choice legend { font-weight: 600; padding: 0 4px; }
label.radio { display: flex; gap: 8px; align-items: center; font-weight: 400; }
.card h2 { margin: 0 0 4px; font-size: 1rem; }
span.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
/* payment detail */
ol.timeline { list-style: none; margin: 0 0 16px; padding: 0; border-left: 2px solid var(--border); }
ol.timeline > li { position: relative; margin: 0 0 12px; padding: 0 0 0 16px; overflow-wrap: anywhere; }
ol.timeline > li::before { content: ""; position: absolute; left: -6px; top: 7px; width: 10px; height: 10px; border-radius: 50%; background: var(--accent); }
ol.timeline > li > time { display: block; color: var(--muted); font-size: 0.8125rem; }
.delivery { margin: 8px 0 0; padding: 8px 12px; border: 1px solid var(--border); border-radius: 8px; }
.delivery p { margin: 0 0 6px; }
ul.tries { margin: 0 0 8px; padding-left: 20px; font-size: 0.875rem; }
ul.tries code, .delivery .url { overflow-wrap: anywhere; }
form.refund { max-width: 480px; margin: 0 0 16px; }
.waiting-refunds { margin: 0 0 16px; overflow-wrap: anywhere; }
.waiting-refunds p { margin: 0 0 6px; }
.waiting-refunds ul { margin: 0; padding-left: 20px; }
.status-sent { background: var(--ok-soft); color: var(--ok); }
@media (min-width: 720px) { ol.timeline > li { display: grid; grid-template-columns: 15rem 1fr; gap: 12px; } ol.timeline > li > time { font-size: 0.875rem; } }
/* payments list */
.payment-filters label { flex: 1 1 150px; max-width: 260px; }
.payment-filters input, .payment-filters select { width: 100%; }
.payment-filters .hint { flex-basis: 100%; margin: 0; }
.pager { display: flex; gap: 16px; justify-content: flex-end; }
.pager a { display: inline-block; padding: 10px 4px; font-weight: 600; }
/* customers: an email is one long word */
h1.customer-name { overflow-wrap: anywhere; }
/* overview and operator */
.card p, .acting p { margin: 0; }
.card .hint { margin-top: 4px; }
.chart { margin: 0 0 8px; }
.chart svg { display: block; width: 100%; height: auto; }
.chart .bar { fill: var(--accent); }
.chart .axis { stroke: var(--muted); stroke-width: 1; }
.chart .tick { fill: var(--muted); font-size: 14px; }
@media (max-width: 520px) { .chart .tick { font-size: 26px; } }
.chart figcaption { color: var(--muted); font-size: 0.875rem; margin-top: 4px; }
.chart-numbers { margin: 0 0 16px; }
.chart-numbers summary { cursor: pointer; color: var(--accent-strong); font-weight: 600; padding: 8px 0; }
.acting { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; margin: 0 0 12px; padding: 8px 12px; border: 1px solid #f79009; border-radius: 8px; background: #fff4e5; color: #93370d; }
a.button-link { display: inline-block; padding: 10px 16px; border-radius: 8px; background: var(--accent); color: #fff; font-weight: 600; text-decoration: none; min-height: 44px; }
a.button-link:hover { background: var(--accent-strong); }
h3 { font-size: 1rem; margin: 16px 0 8px; }
form.narrow { max-width: 420px; }
.merchant-list td { white-space: nowrap; }
.actions a { align-self: center; }
/* developers, settings, audit log */
code.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.new-secret { display: block; font-size: 1rem; user-select: all; }
ol.deliveries { list-style: none; margin: 0 0 16px; padding: 0; display: grid; gap: 8px; }
ol.deliveries > .delivery { margin: 0; }
.delivery .ref { overflow-wrap: anywhere; }
.delivery .actions { margin-top: 8px; }
pre.exchange { margin: 0 0 8px; white-space: pre-wrap; overflow-wrap: anywhere; padding: 8px; background: var(--bg); border-radius: 6px; font-size: 0.8125rem; }
details summary { cursor: pointer; }
form.stack input[type=url] { width: 100%; }
label.check { display: flex; gap: 8px; align-items: center; }
label.check input { width: 20px; height: 20px; }
`;
