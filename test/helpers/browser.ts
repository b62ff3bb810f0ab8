import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page, type ViewportSize } from 'playwright-core';

/** Debian's Chromium: the tests never download a browser of their own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
const MISSING = `Chromium not installed at ${CHROMIUM_PATH} (apt-get install chromium)`;

/**
 * Options for a browser suite's `describe`: skipped with a clear reason where Chromium is not
 * installed, except when LIPIRA_REQUIRE_BROWSER=1 (CI), where a missing browser must fail.
 */
export function browserSuiteOptions(): { skip: string | false } {
  const skip = !fs.existsSync(CHROMIUM_PATH) && process.env.LIPIRA_REQUIRE_BROWSER !== '1';
  return { skip: skip ? MISSING : false };
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH))
    throw new Error(`${MISSING}; LIPIRA_REQUIRE_BROWSER=1 makes this a failure, not a skip`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // No sandbox (CI runs as root), and none of the background traffic that would reach the internet.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Tab {
  page: Page;
  /** Console errors and uncaught exceptions; Chromium reports CSP violations as console errors. */
  problems: string[];
}

/** How long any one browser step (a navigation, an element to appear) may take before it fails. */
export const STEP_TIMEOUT_MS = 15_000;

/** A page in a fresh context (its own cookies), recording whatever goes wrong in it; `javaScriptEnabled: false` is a browser with scripts off. */
export async function openTab(
  browser: Browser,
  viewport: ViewportSize = { width: 1280, height: 800 },
  deviceScaleFactor = 1,
  javaScriptEnabled = true,
): Promise<{ context: BrowserContext } & Tab> {
  const context = await browser.newContext({ viewport, deviceScaleFactor, javaScriptEnabled });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

/**
 * Clicks a form's submit button and checks the gateway took the form: it answers every accepted
 * post with a 303 (post/redirect/get), so anything else means the form was refused, and the
 * error names the page that refused it rather than leaving a later wait to time out.
 */
export async function submitForm(page: Page, button: string): Promise<void> {
  const answered = page.waitForResponse((response) => response.request().method() === 'POST');
  await page.click(button);
  const response = await answered;
  if (response.status() !== 303) {
    const title = /<title>(.*)<\/title>/.exec(await response.text())?.[1];
    throw new Error(
      `the form behind ${button} was answered ${response.status()} (${title ?? 'no title'}) instead of a redirect`,
    );
  }
}

/**
 * One browser for the enclosing `describe`; each test's tabs get their own context, closed after
 * that test so no cookie or page outlives it.
 */
export function useBrowser(): {
  newTab(viewport?: ViewportSize, options?: { javaScriptEnabled?: boolean }): Promise<Tab>;
} {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  after(() => browser?.close());
  return {
    async newTab(viewport, options = {}) {
      if (!browser) throw new Error('the browser did not start');
      const { context, ...tab } = await openTab(browser, viewport, 1, options.javaScriptEnabled ?? true);
      contexts.push(context);
      return tab;
    },
  };
}

export interface MerchantSite {
  /** e.g. `http://127.0.0.1:40123`; every path under it answers a small page. */
  origin: string;
  close(): Promise<void>;
}

/** The merchant's own site on loopback, so callback_url and return_url are pages a browser can land on. */
export function startMerchantSite(): Promise<MerchantSite> {
  const server = http.createServer((_request, response) => {
    // The empty icon keeps Chromium from asking for /favicon.ico, so the page logs nothing.
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<!doctype html><html lang="en"><head><title>Test Shop</title><link rel="icon" href="data:,"></head><body><h1>Back at the shop</h1></body></html>',
    );
  });
  return serveSite(server);
}

/** `server` listening on a loopback port of its own, as a site a browser can be sent to. */
export function serveSite(server: http.Server): Promise<MerchantSite> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A merchant site for the enclosing `describe`. */
export function useMerchantSite(): { origin: string } {
  const holder = { origin: '' };
  let site: MerchantSite | undefined;
  before(async () => {
    site = await startMerchantSite();
    holder.origin = site.origin;
  });
  after(() => site?.close());
  return holder;
}
