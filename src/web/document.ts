import { escapeHtml } from '../shared/html.ts';

export interface HtmlDocument {
  title: string;
  /** Our own stylesheet's path: pages load nothing from elsewhere. */
  stylesheet: string;
  /** Our own script's path, loaded in <head> without `defer` (the checkout marks the page as scripted before the first paint). */
  script?: string;
  /** Extra elements for <head>, already HTML. */
  head?: string;
  bodyClass?: string;
  /** The body, already HTML. */
  body: string;
}

/**
 * The document every server-rendered page of ours is (checkout, 3-D Secure, sandbox landing,
 * dashboard): English, scaled for phones, kept out of search engines, and with an empty icon,
 * which spares the browser a /favicon.ico request that would only 404.
 */
export function htmlDocument(document: HtmlDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${escapeHtml(document.title)}</title>
<link rel="stylesheet" href="${escapeHtml(document.stylesheet)}">${document.script ? `\n<script src="${escapeHtml(document.script)}"></script>` : ''}${document.head ?? ''}
</head>
<body${document.bodyClass ? ` class="${escapeHtml(document.bodyClass)}"` : ''}>
${document.body}
</body>
</html>
`;
}
