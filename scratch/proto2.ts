import fs from 'node:fs';
import { createRequire } from 'node:module';
import { launchBrowser } from '../test/helpers/browser.ts';
const require = createRequire(import.meta.url);
const axe = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const b = await launchBrowser();
const page = await b.newPage({ viewport: { width: 360, height: 740 } });
const mode = process.argv[2];
const css = mode === 'row' ? `
table, tbody, tr { display: block; }
thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
tr { border: 1px solid #ccc; margin: 8px 0; padding: 4px 8px; }
td { display: table-row; overflow-wrap: anywhere; }
td::before { display: table-cell; width: 6.5rem; padding-right: 8px; content: attr(data-label); content: attr(data-label) / ""; color: #555; font-size: 13px; }
` : `
table, tbody, tr, td { display: block; }
thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
tr { border: 1px solid #ccc; margin: 8px 0; padding: 4px 8px; }
td { display: grid; grid-template-columns: 6.5rem minmax(0,1fr); overflow-wrap: anywhere; }
td::before { content: attr(data-label); content: attr(data-label) / ""; color: #555; font-size: 13px; }
`;
await page.setContent(`<!doctype html><html lang="en"><head><title>x</title><style>${css}</style></head><body><main><h1>Hi</h1>
<table><caption>Payments</caption><thead><tr><th scope="col">Date</th><th scope="col">Reference</th><th scope="col">Live volume (30 days)</th><th scope="col">Status</th></tr></thead><tbody>
<tr><td data-label="Date">28 November 2026 at 15:16 CAT</td><td data-label="Reference"><a href="/x">order-2026-11-28-kumudzi-market-1234567890-a-long-merchant-reference</a><br><span>LPR-123</span></td><td data-label="Live volume (30 days)">MWK 1,250.00</td><td data-label="Status"><span>Successful</span></td></tr>
</tbody></table></main></body></html>`);
await page.screenshot({ path: `/tmp/shots/proto-${mode}.png` });
console.log(await page.locator('main').ariaSnapshot());
await page.evaluate(axe);
const r = await page.evaluate(async () => (await (window as any).axe.run(document)).violations.map((v: any) => v.id + ' ' + v.impact));
console.log(r);
await b.close();
