import type { App } from '../../http/app-type.ts';
import { escapeHtml } from '../../shared/html.ts';
import { postButton, shell } from '../layout.ts';
import { PAGE, type DashboardDeps, type PageGuard } from '../page-context.ts';

export function registerOverviewPages(app: App, _deps: DashboardDeps, guard: PageGuard): void {
  app.get('/dashboard', PAGE, async (request, reply) => {
    const page = await guard.merchantPage(request, reply, 'read');
    if (!page) return reply;
    const { viewer } = page;
    return guard.html(
      reply,
      200,
      shell(
        'Overview',
        `<h1>Overview</h1>
<p>Signed in as <strong>${escapeHtml(viewer.email)}</strong> (${escapeHtml(viewer.role)}) for <strong>${escapeHtml(page.merchant.name)}</strong>.</p>
<div class="actions">${postButton('/dashboard/logout', viewer.csrf, 'Sign out')}${postButton('/dashboard/logout-everywhere', viewer.csrf, 'Sign out everywhere', 'secondary')}</div>`,
        { viewer },
      ),
    );
  });
}
