import { launchBrowser } from '../test/helpers/browser.ts';
const b = await launchBrowser();
const page = await b.newPage({ viewport: { width: 1280, height: 800 } });
await page.setContent(`<!doctype html><html lang="en"><head><title>x</title><style>
@media (min-width: 720px) { @supports selector(::details-content) {
 details.menu > summary { display: none; }
 details.menu::details-content { content-visibility: visible; display: contents; }
 details.menu { display: contents; }
}}
header { display: flex; gap: 10px; }
</style></head><body><header><a href="/">Brand</a><details class="menu"><summary>Menu</summary><nav aria-label="Dashboard"><a href="/a">Alpha</a> <a href="/b">Beta</a></nav><span>acct</span></details></header><main><h1>Hi</h1></main></body></html>`);
console.log(await page.getByRole('link', { name: 'Alpha' }).isVisible());
console.log(await page.locator('nav').boundingBox(), await page.locator('header span').boundingBox());
console.log(await page.locator('body').ariaSnapshot());
await page.setViewportSize({ width: 360, height: 740 });
console.log(await page.getByRole('link', { name: 'Alpha' }).isVisible());
console.log(await page.locator('body').ariaSnapshot());
await page.click('summary');
console.log(await page.getByRole('link', { name: 'Alpha' }).isVisible());
console.log(await page.locator('body').ariaSnapshot());
await b.close();
