import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSuiteOptions, useBrowser } from '../helpers/browser.ts';
import { freshDatabase, type TestDatabase } from '../helpers/databases.ts';
import { startServe, type ServeProcess } from '../helpers/serve-process.ts';
import { assertAccessible } from './axe.ts';

const WIDTHS = [360, 768, 1280];

/** The gateway's front page in headless Chromium, as a newcomer meets it after the first start: the demo's steps are its longest form. */
describe('the front page of a fresh install in a real browser', browserSuiteOptions(), () => {
  const browser = useBrowser();
  let database: TestDatabase;
  let serve: ServeProcess;
  before(async () => {
    database = freshDatabase('sqlite');
    serve = await startServe({ DATABASE_URL: database.url });
  });
  after(async () => {
    await serve.stop();
    await database.drop();
  });

  for (const width of WIDTHS) {
    test(`at ${width} px it fits without scrolling sideways, keeps to its CSP, and axe finds nothing serious`, async () => {
      const { page, problems } = await browser.newTab({ width, height: 800 });
      await page.goto(`${serve.url}/`);
      assert.equal(await page.locator('h1').textContent(), 'Lipira payment gateway');
      assert.ok(await page.locator('h2', { hasText: 'Next steps' }).isVisible());
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= width, `nothing scrolls sideways at ${width} px (scrollWidth ${scrollWidth})`);
      await assertAccessible(page, `the front page at ${width} px`);
      assert.deepEqual(problems, [], 'no console error, CSP violations included');
    });
  }

  test("its links lead to the dashboard's sign-in and to the API reference", async () => {
    const { page, problems } = await browser.newTab();
    await page.goto(`${serve.url}/`);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${serve.url}/dashboard/login`);
    await page.goBack();
    await page.getByRole('link', { name: 'API reference' }).click();
    // That the reference renders its operations is docs.test.ts's to check: Swagger UI building
    // the whole document in the browser took over 15 s on a loaded CI machine.
    await page.waitForURL(`${serve.url}/docs`);
    assert.equal(await page.title(), 'Lipira API reference');
    assert.deepEqual(problems, []);
  });
});
