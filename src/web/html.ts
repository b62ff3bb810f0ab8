/**
 * HTML that is safe by construction. A page is built with the `html` tag, which escapes every
 * value put into it unless the value is already `SafeHtml` (made by `html` itself, or by `raw`
 * for markup of our own). A plain string where markup is expected is a type error wherever a
 * function takes `SafeHtml`, so no one has to remember to escape.
 *
 * What a value renders as:
 * - `SafeHtml`: as it is;
 * - a string or a number: escaped (`"` and `'` too, so it is safe in a quoted attribute; an
 *   attribute must always be quoted, and a URL attribute still needs its scheme checked);
 * - an array: each item by these rules, joined with nothing between;
 * - `null`, `undefined` and `false`: nothing, so `${cond && html`…`}` and optional parts need no
 *   `: ''`. `true` is not accepted (it would print "true"); beware `0 && …`, which prints 0.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML element content and quoted attribute values. Characters beyond ASCII
 * become numeric references, so that our pages are ASCII: a string with even one other character
 * is encoded to UTF-8 character by character when written to the socket (a 5.7 KB checkout page:
 * 1.6 µs against 0.2 µs for the same page in ASCII, copied as it is).
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']|[\u0080-\u{10ffff}]/gu, (ch) => ESCAPES[ch] ?? `&#${ch.codePointAt(0)!};`);
}

/** Markup that is ours: built by `html`, or vouched for with `raw`. The private field makes the type unforgeable. */
class SafeHtml {
  readonly #markup: string;

  constructor(markup: string) {
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

export type { SafeHtml };

export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0]!;
  for (let i = 0; i < values.length; i++) markup += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(markup);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * Markup taken as it is, unescaped: only for constants of our own (an icon's SVG), never for
 * anything a merchant, customer or request supplied.
 */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Items with a separator between them (a separator given as a string is escaped like any value). */
export function joinHtml(items: readonly HtmlValue[], separator: HtmlValue): SafeHtml {
  const rendered = render(separator);
  return new SafeHtml(items.map(render).join(rendered));
}
