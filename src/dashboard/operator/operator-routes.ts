import type { App } from '../../http/app-type.ts';
import { shell } from '../layout.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';

export function registerOperatorPages(app: App, _deps: DashboardDeps, guard: PageGuard): void {
  app.get('/dashboard/operator', PAGE, async (request, reply) => {
    const page = await guard.page(request, reply, 'operate');
    if (!page) return reply;
    return guard.html(reply, 200, shell('Operator', '<h1>Operator</h1>', { viewer: page.viewer }));
  });
}
