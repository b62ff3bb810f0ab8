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
.top { position: relative; display: flex; gap: 8px 12px; align-items: center; padding: 8px 16px; background: var(--surface); border-bottom: 1px solid var(--border); }
.brand { font-weight: 700; color: var(--text); text-decoration: none; padding: 10px 0; }
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
/* A payment link's address breaks anywhere rather than push a phone's page sideways. */
.link-url code { overflow-wrap: anywhere; }
.share { display: flex; flex-wrap: wrap; gap: 8px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 16px; }
ol.codes { margin: 0 0 16px; padding-left: 2.5rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.0625rem; line-height: 1.8; }

/* The header: one line on a phone, the menu behind its button (layout.ts's header) */
.whose { flex: 1 1 auto; min-width: 0; overflow: hidden; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; line-height: 1.25; font-weight: 600; color: var(--muted); overflow-wrap: anywhere; }
.who { color: var(--muted); font-size: 0.875rem; overflow-wrap: anywhere; }
.mode-label { flex: none; font-size: 0.875rem; font-weight: 700; padding: 2px 8px; border-radius: 999px; white-space: nowrap; }
.mode-label.mode-test { background: #fff4e5; color: #93370d; border: 1px solid #f79009; }
.mode-label.mode-live { background: var(--ok-soft); color: var(--ok); border: 1px solid #75e0a7; }
@media (max-width: 519px) { .top { gap: 8px; } .whose { font-size: 0.875rem; } .mode-word { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; } }
body.mode-test { border-top: 4px solid #f79009; }
.test-banner { margin: 0; padding: 4px 16px; background: #fff4e5; color: #93370d; font-size: 0.8125rem; text-align: center; }
.test-banner p { margin: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
details.menu { flex: none; }
details.menu > summary { display: flex; gap: 8px; align-items: center; min-height: 44px; padding: 8px 12px; border: 1px solid var(--accent); border-radius: 8px; color: var(--accent-strong); font-weight: 600; list-style: none; }
details.menu > summary::-webkit-details-marker { display: none; }
details.menu > summary::before { content: ""; width: 16px; height: 2px; margin: 5px 0; background: currentColor; box-shadow: 0 -5px 0 currentColor, 0 5px 0 currentColor; }
details.menu[open] > summary { background: var(--accent); color: #fff; }
details.menu > summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.menu-panel { position: absolute; z-index: 10; top: 100%; left: 0; right: 0; display: grid; gap: 12px; padding: 8px 16px 16px; background: var(--surface); border-bottom: 1px solid var(--border); box-shadow: 0 12px 24px rgba(16, 24, 40, 0.16); }
.sections { display: grid; }
.sections a { padding: 10px 8px; border-radius: 6px; color: var(--text); font-weight: 600; text-decoration: none; }
.sections a[aria-current=page] { background: #e6f4f1; color: var(--accent-strong); box-shadow: inset 4px 0 0 var(--accent); }
.mode-switch, .account { padding-top: 12px; border-top: 1px solid var(--border); }
.account { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
.account .who { flex-basis: 100%; }
@media (min-width: 520px) { .menu-panel { left: auto; right: 16px; width: 22rem; border: 1px solid var(--border); border-top: 0; border-radius: 0 0 12px 12px; } }
/* Wide screens: the menu's contents in the header itself, no button; where a browser cannot show a closed <details>' contents, the button stays. */
@media (min-width: 960px) {
  @supports selector(::details-content) {
    .top { display: grid; grid-template-columns: auto minmax(0, 1fr) auto auto minmax(0, auto); grid-template-areas: "brand whose mode switch account" "sections sections sections sections sections"; gap: 0 16px; padding: 4px 16px 0; }
    .brand { grid-area: brand; }
    .whose { grid-area: whose; -webkit-line-clamp: 1; }
    .mode-label { grid-area: mode; }
    details.menu, details.menu::details-content, .menu-panel { display: contents; }
    .menu-panel { position: static; }
    details.menu::details-content { content-visibility: visible; }
    details.menu > summary { display: none; }
    .mode-switch { grid-area: switch; padding: 0; border: 0; }
    .account { grid-area: account; flex-wrap: nowrap; padding: 0; border: 0; }
    .account .who { flex-basis: auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .sections { grid-area: sections; display: flex; flex-wrap: wrap; gap: 0 16px; margin: 4px -16px 0; padding: 0 16px; border-top: 1px solid var(--border); }
    .sections a { padding: 10px 2px 7px; border-radius: 0; color: var(--muted); }
    .sections a[aria-current=page] { background: none; box-shadow: none; border-bottom: 3px solid var(--accent); }
  }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.table-wrap { overflow-x: auto; margin: 0 0 16px; }
table { width: 100%; border-collapse: collapse; font-size: 0.9375rem; }
th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
/*
 * A table of more than three columns (layout.ts's table) on a narrow screen: each row a card, each
 * cell a line with its column's heading beside it (its data-label, drawn here and not read out:
 * a screen reader still has the table's own headings). The cell is a table row of its own, so the
 * heading and everything the cell holds (a link, a line break, a form) sit in two columns.
 */
@media (max-width: 719px) {
  table.cards-narrow, table.cards-narrow > tbody, table.cards-narrow > tbody > tr { display: block; }
  table.cards-narrow > thead { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  table.cards-narrow > tbody > tr { margin: 0 0 8px; padding: 6px 12px; border: 1px solid var(--border); border-radius: 10px; }
  table.cards-narrow > tbody > tr > td { display: table-row; overflow-wrap: anywhere; text-align: left; border: 0; }
  table.cards-narrow > tbody > tr > td:empty { display: none; }
  table.cards-narrow > tbody > tr > td::before { display: table-cell; width: 6.5rem; padding: 3px 12px 3px 0; color: var(--muted); font-size: 0.8125rem; font-weight: 600; overflow-wrap: normal; content: attr(data-label); content: attr(data-label) / ""; }
}
.status { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 0.8125rem; font-weight: 600; background: var(--bg); color: var(--text); }
.status-success, .status-delivered { background: var(--ok-soft); color: var(--ok); }
.status-failed, .status-cancelled, .status-expired, .status-disabled { background: var(--danger-soft); color: var(--danger); }
.status-pending { background: #fff4e5; color: #93370d; }
select, input[type=number], input[type=date], input[type=search], input[type=url], textarea { font: inherit; font-size: 16px; padding: 8px 10px; border: 1px solid #8a94a6; border-radius: 8px; background: var(--surface); color: var(--text); }
/*
 * Fields as wide as what they take, not as the page: a name or an address is long, an amount, a
 * code or a duration short. A text field whose maxlength is small (24h, a colour) is that many
 * characters wide where the browser reads attr() as a number; elsewhere its kind's width holds.
 */
input[type=text], input[type=password], input[type=search] { max-width: 24rem; }
input[type=email], input[type=url] { width: 100%; max-width: 32rem; }
input[type=tel], input[inputmode=tel] { max-width: 16rem; }
input[inputmode=decimal], input[inputmode=numeric], input[type=number] { max-width: 12rem; }
input[type=text][maxlength] { max-width: min(24rem, calc(attr(maxlength type(<number>)) * 1ch + 26px)); }
form.stack select, .field select { width: 100%; max-width: 20rem; }
select { max-width: 100%; }
textarea { width: 100%; max-width: 40rem; }
@media (min-width: 520px) { form.stack > button { justify-self: start; } }
form.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin: 0 0 16px; }
form.filters label { font-weight: 600; font-size: 0.875rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; margin: 0 0 16px; }
.card { padding: 12px 16px; border: 1px solid var(--border); border-radius: 10px; }
.card .figure { font-size: 1.375rem; font-weight: 700; }
/* A term takes at most 40 % of the width, so a long one ("Transaction reference (tx_ref)") leaves its value room on a phone. */
dl.facts { display: grid; grid-template-columns: fit-content(40%) minmax(0, 1fr); gap: 4px 16px; margin: 0 0 16px; }
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
/* volume-chart.ts: the value axis left of the bars, the days under them, at the page's own size */
.chart-plot { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 4px 8px; }
.chart-y { display: flex; flex-direction: column; justify-content: space-between; height: 180px; text-align: right; }
.chart-y span, .chart-x span { color: var(--muted); font-size: 0.8125rem; line-height: 16px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.chart-plot svg { display: block; width: 100%; height: 180px; }
.chart-x { grid-column: 2; display: flex; justify-content: space-between; gap: 8px; }
.chart .bar { fill: var(--accent); }
.chart .grid { stroke: var(--border); stroke-width: 1; vector-effect: non-scaling-stroke; }
.chart figcaption { color: var(--muted); font-size: 0.875rem; margin-top: 4px; }
.chart-empty { display: grid; place-items: center; min-height: 120px; padding: 16px; border: 1px dashed #8a94a6; border-radius: 10px; text-align: center; }
.chart-empty figcaption { margin: 0; font-size: 1rem; }
.chart-numbers { margin: 0 0 16px; }
.chart-numbers summary { cursor: pointer; color: var(--accent-strong); font-weight: 600; padding: 8px 0; }
.acting { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; margin: 0 0 12px; padding: 8px 12px; border: 1px solid #f79009; border-radius: 8px; background: #fff4e5; color: #93370d; }
a.button-link { display: inline-block; padding: 10px 16px; border-radius: 8px; background: var(--accent); color: #fff; font-weight: 600; text-decoration: none; min-height: 44px; }
a.button-link:hover { background: var(--accent-strong); }
h3 { font-size: 1rem; margin: 16px 0 8px; }
form.narrow { max-width: 420px; }
.actions a { align-self: center; }
/* developers, settings, audit log */
code.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.new-secret { display: block; font-size: 1rem; user-select: all; }
/* Copy buttons (layout.ts's copyButton), after the value they copy */
button.copy { min-height: 32px; margin: 2px 0 2px 8px; padding: 2px 10px; font-size: 0.8125rem; vertical-align: middle; }
.new-secret + button.copy { margin: 8px 0 0; }
ol.deliveries { list-style: none; margin: 0 0 16px; padding: 0; display: grid; gap: 8px; }
ol.deliveries > .delivery { margin: 0; }
.delivery .ref { overflow-wrap: anywhere; }
.delivery .actions { margin-top: 8px; }
pre.exchange { margin: 0 0 8px; white-space: pre-wrap; overflow-wrap: anywhere; padding: 8px; background: var(--bg); border-radius: 6px; font-size: 0.8125rem; }
details summary { cursor: pointer; }
label.check { display: flex; gap: 8px; align-items: center; }
label.check input { width: 20px; height: 20px; }
`;
