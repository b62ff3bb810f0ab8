/**
 * What `lipira trigger` uses in place of a customer's browser on the gateway's own pages (the
 * hosted checkout, the 3-D Secure page): it keeps their cookies, sends back each form's
 * anti-forgery token, and posts forms from the pages' origin, as a browser without JavaScript
 * does. Redirects are not followed: where a page sends the customer is what the caller reads.
 */
export class CustomerBrowser {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  /** `origin`: the pages' own, as their links name it (the gateway's PUBLIC_BASE_URL). */
  constructor(private readonly origin: string) {}

  get(path: string): Promise<PageAnswer> {
    return this.send(path, { method: 'GET' });
  }

  /** Posts a form with the token the last page carried. */
  post(path: string, fields: Record<string, string>): Promise<PageAnswer> {
    return this.send(path, {
      method: 'POST',
      body: new URLSearchParams({ csrf: this.csrf, ...fields }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin },
    });
  }

  private async send(path: string, init: RequestInit): Promise<PageAnswer> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies.values()].join('; '));
    const response = await fetch(this.origin + path, {
      ...init,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      this.cookies.set(pair.split('=')[0]!, pair);
    }
    const text = await response.text();
    this.csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? this.csrf;
    const location = response.headers.get('location');
    return { status: response.status, text, location: location ? new URL(location, this.origin) : null };
  }
}

export interface PageAnswer {
  status: number;
  text: string;
  /** Where a redirect sends the browser, resolved against the page's address. */
  location: URL | null;
}
