import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { App } from '../http/app-type.ts';
import { sendHtml } from '../http/html.ts';
import { soleDemoMerchant } from '../merchants/merchant-repository.ts';
import { renderHomePage } from './home-page.ts';

/** `GET /`: a page for people, not the API, so it stays out of the API reference. */
export function registerHomeRoutes(app: App, { config, db }: { config: Config; db: Kysely<DB> }): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    sendHtml(reply, 200, renderHomePage(config.publicBaseUrl, await soleDemoMerchant(db))),
  );
}
