import { html, joinHtml } from '../web/html.ts';
import type { ComposedEmail } from './receipt-email.ts';

/** What an email about a dashboard account says: its first paragraph, an optional link, and a closing note. */
export interface AccountEmailText {
  subject: string;
  intro: string;
  link?: { href: string; label: string };
  closing: string;
}

/** The plain text and HTML of an email about a dashboard account: every one is laid out alike. */
export function composeAccountEmail({ subject, intro, link, closing }: AccountEmailText): ComposedEmail {
  return {
    subject,
    text: `${intro}\n\n${link ? `${link.href}\n\n` : ''}${closing}\n`,
    html: joinHtml(
      [
        html`<!doctype html>`,
        html`<html><head><meta charset="utf-8"><title>${subject}</title></head>`,
        html`<body style="font-family:Arial,Helvetica,sans-serif;color:#222">`,
        html`<p>${intro}</p>`,
        link && html`<p><a href="${link.href}">${link.label}</a></p>`,
        html`<p style="color:#555">${closing}</p>`,
        html`</body></html>`,
      ].filter(Boolean),
      '\n',
    ).toString(),
  };
}
