import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TestGateway } from './gateway.ts';
import { submitForm } from './browser.ts';
import { DashboardBrowser } from './dashboard.ts';
import { assertAccessible } from '../browser/axe.ts';
import { assertFitsEveryWidth } from '../browser/layout.ts';
import { createUser } from '../../src/users/user-service.ts';

/** The password every dashboard test user gets. */
export const DASHBOARD_PASSWORD = 'correct horse battery staple';

let made = 0;

/**
 * A dashboard user with a password (no second factor), made through the same service as
 * `lipira users create`: a merchant's when `merchantId` is given, else a gateway operator. Its email.
 */
export async function dashboardUser(
  gw: TestGateway,
  role: 'owner' | 'developer' | 'viewer' | 'operator',
  merchantId: string | null = null,
): Promise<string> {
  const email = `${role}${++made}-${process.pid}@example.com`;
  await createUser(
    gw.gateway.database.db,
    { publicBaseUrl: gw.url },
    role === 'operator'
      ? { merchantId: null, email, role, password: DASHBOARD_PASSWORD }
      : { merchantId, email, role, password: DASHBOARD_PASSWORD },
    gw.gateway.clock.now(),
  );
  return email;
}

/** A dashboard client over plain HTTP, signed in as a new user of `role` at the merchant. */
export async function signedInBrowser(
  gw: TestGateway,
  role: 'owner' | 'developer' | 'viewer',
  merchantId: string,
): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(gw.url);
  assert.equal(
    (await browser.signIn(await dashboardUser(gw, role, merchantId), DASHBOARD_PASSWORD)).location,
    '/dashboard',
  );
  return browser;
}

/** Signs in from the sign-in page in a real browser tab, and waits for the dashboard behind it. */
export async function signInPage(
  page: Page,
  base: string,
  email: string,
  password = DASHBOARD_PASSWORD,
): Promise<void> {
  await page.goto(`${base}/dashboard`);
  assert.equal(new URL(page.url()).pathname, '/dashboard/login', 'signed out, the dashboard asks to sign in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await submitForm(page, 'button[type=submit]');
}

/**
 * With LIPIRA_DASHBOARD_SCREENSHOTS=1, saves the page as docs/dashboard/<name>.png for the README
 * (the whole page, or with `fullPage: false` the screen as a phone shows it first, animations
 * stopped); otherwise does nothing, so test runs write no files.
 */
export async function saveDashboardScreenshot(
  page: Page,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  if (process.env.LIPIRA_DASHBOARD_SCREENSHOTS !== '1') return;
  await page.screenshot({
    path: new URL(`../../docs/dashboard/${name}.png`, import.meta.url).pathname,
    fullPage,
    animations: 'disabled',
  });
}

/**
 * A dashboard page checked as it is: axe finds nothing on the desktop, its screenshot is saved
 * when asked (saveDashboardScreenshot), it fits 360, 768 and 1280 px (assertFitsEveryWidth), and
 * on a 360 px phone axe again finds nothing. The tab is left at 1280 × 800.
 */
export async function checkDashboardPage(page: Page, what: string, screenshot: string | null = null): Promise<void> {
  await assertAccessible(page, what);
  if (screenshot) await saveDashboardScreenshot(page, screenshot);
  await assertFitsEveryWidth(page, what);
  await page.setViewportSize({ width: 360, height: 740 });
  await assertAccessible(page, `${what} on a phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** On a phone the header's sections, mode switch and account are behind its Menu button: opens it where it shows. */
export async function openHeaderMenu(page: Page): Promise<void> {
  const summary = page.locator('header details.menu > summary');
  if ((await summary.isVisible()) && (await page.locator('header details.menu[open]').count()) === 0)
    await summary.click();
}
