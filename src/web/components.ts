/**
 * The small pieces every server-rendered page of ours (checkout, 3-D Secure, dashboard) builds its
 * forms and messages from.
 */
import { html, type SafeHtml } from './html.ts';

/** The double-submit token every form of ours carries (see csrf.ts). */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

/** Why a form was refused; nothing when there is no message. */
export function errorBox(message: string | null | undefined): SafeHtml {
  return html`${message && html`<p class="error" role="alert">${message}</p>`}`;
}

/** What a form just did; nothing when there is no message. */
export function noticeBox(message: string | null | undefined): SafeHtml {
  return html`${message && html`<p class="notice" role="status">${message}</p>`}`;
}
