import type { App } from '../../http/app-type.ts';
import { shell } from '../layout.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';

export function registerPaymentDetailPages(app: App, _deps: DashboardDeps, guard: PageGuard): void {
  app.get<{ Params: { id: string } }>('/dashboard/payments/:id', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    return guard.html(reply, 200, shell('Payment', '<h1>Payment</h1>', { viewer: page.viewer }));
  });
}
