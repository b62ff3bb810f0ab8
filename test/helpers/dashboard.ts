import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';

export interface PageAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect sends the browser, as a path. */
  location: string | null;
}

/**
 * A browser's part in the dashboard over plain HTTP: it keeps the cookies it is given (by name,
 * as a browser keeps them for /dashboard), follows no redirects by itself, and posts forms with
 * the anti-forgery token of the last page it read.
 */
export class DashboardBrowser {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, as sent. */
  readonly setCookies: string[] = [];
  private csrf = '';

  constructor(private readonly base: string) {}

  async get(path: string): Promise<PageAnswer> {
    return this.send(path, { method: 'GET' });
  }

  /** Posts a form as the page would, with its token unless `csrf` says otherwise. */
  async post(
    path: string,
    form: Record<string, string>,
    options: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<PageAnswer> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const body = new URLSearchParams(csrf === null ? form : { csrf, ...form }).toString();
    return this.send(path, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    });
  }

  /** Reads the sign-in page, then signs in with email and password (and `code`, when asked for one); the last answer. */
  async signIn(email: string, password: string, code?: string): Promise<PageAnswer> {
    await this.get('/dashboard/login');
    const answer = await this.post('/dashboard/login', { email, password });
    if (answer.location !== '/dashboard/login' || code === undefined) return answer;
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { code });
  }

  private async send(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<PageAnswer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(this.base + path, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, ...(cookie ? { cookie } : {}) },
    });
    for (const header of response.headers.getSetCookie()) {
      this.setCookies.push(header);
      const [pair] = header.split(';');
      const [name, ...value] = pair!.split('=');
      if (/Max-Age=0/i.test(header)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      text,
      location: location === null ? null : location.replace(this.base, ''),
    };
  }
}

/**
 * The authenticator app's code for a secret now (or at `now`), or `steps` codes later: a code once accepted is
 * refused after, so a sign-in right after enrolment types the next one (still inside the window).
 */
export function totpCode(secret: string, steps = 0, now = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: now + steps * 30_000,
  });
}

/**
 * A page's markup without its table cells' column labels (`data-label`, which a table of more
 * than three columns gives each cell for phones: layout.ts's table), to find cells by content.
 */
export function withoutCellLabels(text: string): string {
  return text.replace(/<td data-label="[^"]*">/g, '<td>');
}

/** The key the two-factor page shows for the app to be typed into. */
export function shownTotpSecret(page: PageAnswer): string {
  const secret = /<span class="secret">([A-Z2-7]+)<\/span>/.exec(page.text)?.[1];
  assert.ok(secret, 'the two-factor page shows the key');
  return secret;
}

/**
 * The hidden fields of a confirmation page's form (`confirmForm`) posting to `action`, as the
 * browser would post them back; the anti-forgery token is the browser's own to add.
 */
export function confirmFormFields(html: string, action: string): Record<string, string> {
  const form = new RegExp(`<form class="confirm" method="post" action="${action}">([\\s\\S]*?)</form>`).exec(html)?.[1];
  assert.ok(form, `the confirmation page has the form posting to ${action}`);
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    if (name !== 'csrf') fields[name!] = value!.replace(/&amp;/g, '&');
  return fields;
}
