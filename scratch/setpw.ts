import { launchBrowser, openTab } from '../test/helpers/browser.ts';
import { startTestGateway } from '../test/helpers/gateway.ts';
import { createUser } from '../src/users/user-service.ts';
const gw = await startTestGateway('sqlite');
const browser = await launchBrowser();
try {
  const merchant = await gw.newMerchant('Test Shop');
  const { link } = await createUser(gw.gateway.database.db, { publicBaseUrl: gw.url }, { merchantId: merchant.id, email: 'dev1@example.com', role: 'developer' }, Date.now());
  const { page, problems } = await openTab(browser, { width: 360, height: 740 });
  await page.goto(link!); console.log(link, await page.title());
  await page.getByLabel('New password').fill('correct horse battery staple');
  await page.getByLabel('The same password again').fill('correct horse battery staple');
  page.on('request', (r) => console.log('request', r.method(), r.url(), Date.now()));
  page.on('response', (r) => console.log('response', r.status(), r.url(), Date.now()));
  page.setDefaultTimeout(90000); const t = Date.now();
  await page.click('button[type=submit]');
  await page.waitForURL(/password_set/); 
  console.log('problems', problems, Date.now() - t);
} finally { await browser.close(); await gw.close(); }
