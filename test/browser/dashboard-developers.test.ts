import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { browserSuiteOptions, submitForm, useBrowser } from '../helpers/browser.ts';
import { checkDashboardPage, dashboardUser, signInPage } from '../helpers/dashboard-pages.ts';
import { BROWSER_DATABASE_KINDS } from '../helpers/databases.ts';
import { call, useTestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/** A secret key's standing with the API: 404 for a charge nobody made means the key was accepted. */
const keyStatus = async (base: string, key: string) =>
  (await call(base, '/verify-payment/no-such-charge', { key })).status;

/**
 * The developers, settings (with the team) and audit log pages in headless Chromium, under their
 * real CSP: an owner rolls the test secret key with a few seconds of overlap, copies the new key
 * from the page, and the test sees through the API that the old key works until the overlap ends
 * and is refused after; on a phone, an owner rolls the webhook secret and removes a team member,
 * each through its confirmation page. axe checks every page; each fits 360, 768 and 1280 px.
 */
describe('the developers, settings and audit log pages in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();

  for (const kind of BROWSER_DATABASE_KINDS) {
    describe(`on ${kind}`, () => {
      const ctx = useTestGateway(kind, { WORKER_INTERVAL: '100ms' });
      let receiver: Receiver;
      before(async () => {
        receiver = await startReceiver();
      });
      after(() => receiver.close());

      test('roll a key and see the old one stop after its overlap; settings, team and audit log pass axe', async () => {
        const base = ctx.gw.url;
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        await dashboardUser(ctx.gw, 'developer', ctx.merchant.id);
        const { page, problems } = await browser.newTab({ width: 1280, height: 800 });
        await signInPage(page, base, email);
        await page.waitForURL(`${base}/dashboard`);

        await page.goto(`${base}/dashboard/developers`);
        await page.getByLabel('Webhook URL').fill(receiver.url);
        await submitForm(page, 'button:text("Save the webhook URL")');
        await submitForm(page, 'button:text("Send a test event")');
        await receiver.waitFor(1);
        await page.goto(`${base}/dashboard/developers`);
        await checkDashboardPage(page, 'the developers page', 'developers');

        await page.getByLabel(/Old secret keys keep working for/).fill('6s');
        const answered = page.waitForResponse((response) => response.url().endsWith('/dashboard/developers/keys/roll'));
        await page.click('button:text("Roll the test secret key")');
        assert.equal((await answered).status(), 200);
        const secret = (await page.locator('.new-secret').textContent())?.trim() ?? '';
        assert.match(secret, /^sec-test-[0-9A-Za-z]{32}$/);
        // Both keys are tried before the page's checks, which take seconds on a loaded machine: the overlap is real time.
        assert.equal(await keyStatus(base, secret), 404, 'the new key works at once');
        assert.equal(await keyStatus(base, ctx.merchant.test_secret_key), 404, 'the old key works during the overlap');
        await checkDashboardPage(page, 'the new secret key page', 'developers-new-secret');
        const ends = await ctx.gw.gateway.database.db
          .selectFrom('api_keys')
          .select('expires_at')
          .where('merchant_id', '=', ctx.merchant.id)
          .where('mode', '=', 'test')
          .where('kind', '=', 'secret')
          .where('expires_at', 'is not', null)
          .executeTakeFirstOrThrow();
        await sleep(Math.max(0, ends.expires_at! - Date.now()) + 1_200);
        assert.equal(await keyStatus(base, ctx.merchant.test_secret_key), 401, 'the old key stops after its overlap');
        assert.equal(await keyStatus(base, secret), 404);

        await page.goto(`${base}/dashboard/developers`);
        assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');

        await page.goto(`${base}/dashboard/settings`);
        await page.getByLabel('Brand colour').fill('#1a7f5a');
        await submitForm(page, 'button:text("Save settings")');
        await page.getByLabel('Email', { exact: true }).fill('thoko@example.com');
        await submitForm(page, 'button:text("Send the invitation")');
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /invitation is on its way/);
        await checkDashboardPage(page, 'the settings and team page', 'settings');
        await page.getByRole('link', { name: 'Cancel the invitation of thoko@example.com' }).click();
        await page.waitForURL(/\/dashboard\/settings\/team\/invitations\/inv_\w+\/cancel$/);
        await checkDashboardPage(page, 'the page confirming an invitation is cancelled');
        await submitForm(page, 'button:text("Cancel the invitation")');
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /invitation is cancelled/);

        await page.goto(`${base}/dashboard/audit`);
        const log = (await page.locator('main').textContent()) ?? '';
        for (const action of [
          'Rolled a secret API key',
          'Changed the webhook URL',
          'Sent a test webhook event',
          'Changed the settings',
          'Added a team member',
        ])
          assert.ok(log.includes(action), action);
        await checkDashboardPage(page, 'the audit log', 'audit-log');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });

      test('on a phone, roll the webhook secret and remove a team member, each through a confirmation page of its own', async () => {
        const base = ctx.gw.url;
        const db = ctx.gw.gateway.database.db;
        const phone = { width: 360, height: 740 };
        const email = await dashboardUser(ctx.gw, 'owner', ctx.merchant.id);
        const leaving = await dashboardUser(ctx.gw, 'viewer', ctx.merchant.id);
        const { page, problems } = await browser.newTab(phone);
        await signInPage(page, base, email);
        await page.waitForURL(`${base}/dashboard`);
        const main = async () => ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');

        await page.goto(`${base}/dashboard/developers`);
        await page.click('main a:text("Roll the test webhook secret")');
        await page.waitForURL(`${base}/dashboard/developers/webhook/secret`);
        assert.equal(await page.getByLabel('24 hours').isChecked(), true, 'the overlap is 24 hours unless changed');
        await page.getByLabel('1 hour').check();
        await checkDashboardPage(page, 'the webhook secret roll confirmation', 'webhook-secret-roll');
        await page.setViewportSize(phone);
        assert.equal(await page.getByLabel('1 hour').isChecked(), true);
        const before = await db.selectFrom('webhook_secrets').selectAll().where('mode', '=', 'test').execute();
        const answered = page.waitForResponse(
          (response) =>
            response.url().endsWith('/dashboard/developers/webhook/secret') && response.request().method() === 'POST',
        );
        await page.click('main button:text("Roll the test webhook secret")');
        assert.equal((await answered).status(), 200);
        const secret = (await page.locator('.new-secret').textContent())?.trim() ?? '';
        assert.match(secret, /^whsec_/);
        assert.match(
          await main(),
          /Until \d{1,2} \w+ \d{4} at \d{2}:\d{2} CAT, each webhook also carries a signature made with the previous secret/,
        );
        await checkDashboardPage(page, 'the new webhook secret page');
        await page.setViewportSize(phone);
        const [row] = await db
          .selectFrom('webhook_secrets')
          .selectAll()
          .where('merchant_id', '=', ctx.merchant.id)
          .where('mode', '=', 'test')
          .execute();
        assert.equal(row!.secret, secret);
        assert.equal(row!.previous_secret, before.find((one) => one.merchant_id === ctx.merchant.id)!.secret);

        await page.click('main a:text("Back to Developers")');
        await page.waitForURL(`${base}/dashboard/developers`);
        assert.match(
          (await page.locator('.overlap').textContent()) ?? '',
          /overlap is running: until \d{1,2} \w+ \d{4} at \d{2}:\d{2} CAT, test-mode webhooks are signed with both/,
        );
        await checkDashboardPage(page, 'the developers page while an overlap runs');
        await page.setViewportSize(phone);

        await page.goto(`${base}/dashboard/settings`);
        await page.getByRole('link', { name: `Remove ${leaving} from the team` }).click();
        await page.waitForURL(/\/dashboard\/settings\/team\/usr_\w+\/remove$/);
        assert.match(await main(), /Remove this member from the team\?/);
        await checkDashboardPage(page, 'the page confirming a member is removed', 'settings-remove-member');
        await page.setViewportSize(phone);
        await page.click('main a:text("Keep them")');
        await page.waitForURL(`${base}/dashboard/settings`);
        assert.ok((await main()).includes(leaving), 'Keep them removes nothing');
        await page.getByRole('link', { name: `Remove ${leaving} from the team` }).click();
        await submitForm(page, `main button:text("Remove ${leaving}")`);
        assert.match((await page.locator('[role=status]').textContent()) ?? '', /removed and signed out/);
        assert.ok(!(await main()).includes(leaving), 'no longer listed');
        assert.deepEqual(problems, [], 'no console error or CSP violation');
      });
    });
  }
});
