/**
 * The pages of the browser integrations (docs/integrate/api-reference.md#browser-integrations): the end of a payment shown in the
 * inline popup, and the HTML checkout form's refusals.
 */
import { readFileSync } from 'node:fs';
import { html, type SafeHtml } from '../../web/html.ts';
import { ICONS } from './icons.ts';
import { page, statusBlock } from './layout.ts';

/** What a framed session's last page posts to the merchant's page (and where the browser then goes: docs/integrate/api-reference.md#redirects). */
export interface FrameResult {
  tx_ref: string;
  status: 'success' | 'failed';
  /** Our reference, as the success redirect's `transaction_id`; null after a failure. */
  transaction_id: string | null;
  redirect_url: string | null;
}

/**
 * The page a framed session ends on: frame-result.js posts `result` to `origin` (the merchant page
 * that opened the popup), which closes the popup and goes on. The link is for a page opened outside
 * a frame, or a browser without scripts: it leaves the frame for the merchant's URL.
 */
export function renderFrameResultPage(merchant: string, origin: string, result: FrameResult): SafeHtml {
  const heading = result.status === 'success' ? 'Payment successful' : 'This payment has ended';
  const link = result.redirect_url
    ? html`<a class="button" id="continue" href="${result.redirect_url}" target="_top">Continue to ${merchant}</a>`
    : '';
  const body = html`<div class="card-body status" id="frame-result" data-origin="${origin}" data-result="${JSON.stringify(result)}">
${statusBlock({ tone: result.status === 'success' ? 'success' : 'neutral', icon: result.status === 'success' ? ICONS.check : ICONS.ban, heading, sentence: html`Taking you back to ${merchant}.` })}
${link}
</div>`;
  return page(heading, body, { head: html`\n<script src="/js/frame-result.js"></script>` });
}

/** The HTML checkout form's refusal: what was wrong, in words, for the customer to take back to the shop. */
export function renderFormErrorPage(heading: string, problems: string[]): SafeHtml {
  const items = problems.map((problem) => html`<li>${problem}</li>`);
  const body = html`<div class="card-body status" id="form-error">
${statusBlock({ tone: 'failed', icon: ICONS.alert, heading, sentence: 'The shop sent a payment form this gateway could not accept. Go back to the shop and try again, or tell the shop what this page says.' })}
${items.length > 0 && html`<ul class="problems" role="alert">${items}</ul>`}
</div>`;
  return page(heading, body);
}

const script = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

/**
 * The browser integrations' scripts, read once at start-up (`bin/lipira.js` copies this folder's
 * files beside the bundle): popup.js for merchants' pages, frame-result.js for our framed pages.
 */
export const BROWSER_SCRIPTS = { popup: script('popup.js'), frameResult: script('frame-result.js') };
