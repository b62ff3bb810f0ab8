import type { Config } from '../config.ts';
import type { App } from '../http/app-type.ts';
import { sendHtml } from '../http/html.ts';
import { soleDemoMerchant } from '../merchants/merchant-repository.ts';
import { renderHomePage } from './home-page.ts';
import type { Database } from '../db/database.ts';

/** `GET /`: a page for people, not the API, so it stays out of the API reference. */
export function registerHomeRoutes(
  app: App,
  { config, database: { db } }: { config: Config; database: Pick<Database, 'db'> },
): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    sendHtml(reply, 200, renderHomePage(config.publicBaseUrl, await soleDemoMerchant(db))),
  );
}
