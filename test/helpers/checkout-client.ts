/**
 * Drives the hosted checkout over HTTP the way a browser without JavaScript would: keeps the
 * cookie, copies the form's anti-forgery token, and follows redirects by hand so that every
 * hop can be checked.
 */
export class CheckoutClient {
  /** The cookies the gateway set, by name (paths ignored: a test stays on one checkout or link). */
  private cookies = new Map<string, string>();
  csrf = '';

  /**
   * `base` may be pointed at another server of the same deployment between requests, as a load
   * balancer without sticky sessions would do: the cookie and the form token go along.
   */
  constructor(public base: string) {}

  async get(path: string): Promise<PageResponse> {
    return this.send(path, { method: 'GET' });
  }

  /** Posts a form to our own origin, with the token the last page carried unless one is given. */
  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<PageResponse> {
    const body = new URLSearchParams({ csrf: this.csrf, ...fields }).toString();
    return this.send(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.base, ...headers },
    });
  }

  /** Follows our own redirects until one leaves the gateway or a page answers. */
  async follow(response: PageResponse): Promise<PageResponse> {
    let current = response;
    for (let hops = 0; current.location && current.location.startsWith(this.base) && hops < 10; hops++) {
      current = await this.get(current.location.slice(this.base.length));
    }
    return current;
  }

  private async send(path: string, init: RequestInit): Promise<PageResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies.values()].join('; '));
    const response = await fetch(this.base + path, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      this.cookies.set(pair.split('=')[0]!, pair);
    }
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      text,
      location: location && new URL(location, this.base).toString(),
    };
  }
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Absolute redirect target, if any. */
  location: string | null;
}

/** What a browser shows of some HTML: tags dropped, character references decoded, spaces collapsed. */
export function textOf(html: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', hellip: '…', rsquo: '’', middot: '·' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&(\w+);/g, (entity, name: string) => named[name] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text of a page's alert: why the last attempt failed or was refused ('' when there is none). */
export function alertOf(page: PageResponse): string {
  return textOf(/<div class="error" role="alert">([^]*?)<\/div>/.exec(page.text)?.[1] ?? '');
}
