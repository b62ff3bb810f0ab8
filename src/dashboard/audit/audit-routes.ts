import type { App } from '../../http/app-type.ts';
import { shell } from '../layout.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';

export function registerAuditPages(app: App, _deps: DashboardDeps, guard: PageGuard): void {
  app.get('/dashboard/audit', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    return guard.html(reply, 200, shell('Audit log', '<h1>Audit log</h1>', { viewer: page.viewer }));
  });
}
