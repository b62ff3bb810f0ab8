import { html, type SafeHtml } from './html.ts';

export interface HtmlDocument {
  title: string;
  /** Our own stylesheet's path: pages load nothing from elsewhere. */
  stylesheet: string;
  /** Our own script's path, loaded in <head> without `defer` (the checkout marks the page as scripted before the first paint). */
  script?: string;
  /** Extra elements for <head>. */
  head?: SafeHtml;
  bodyClass?: string;
  body: SafeHtml;
}

/**
 * The document every server-rendered page of ours is (checkout, 3-D Secure, sandbox landing,
 * dashboard): English, scaled for phones, kept out of search engines, and with an empty icon,
 * which spares the browser a /favicon.ico request that would only 404.
 */
export function htmlDocument(document: HtmlDocument): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${document.title}</title>
<link rel="stylesheet" href="${document.stylesheet}">${document.script && html`\n<script src="${document.script}"></script>`}${document.head}
</head>
<body${document.bodyClass && html` class="${document.bodyClass}"`}>
${document.body}
</body>
</html>
`;
}
