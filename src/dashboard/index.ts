// The dashboard Worker (dashboard/wrangler.toml): its pages, reached through the API Worker's
// DASHBOARD service binding, and a daily clean-up of the audit log (1 year), sign-in links and
// ended sessions.
import { dashboardApp } from './app.ts';
import type { DashboardBindings } from './env.ts';
import { prune } from './workflows.ts';

export default {
  fetch: (request, env, ctx) => dashboardApp.fetch(request, env, ctx),
  async scheduled(_controller, env) {
    await prune(env.DB, Date.now());
  },
} satisfies ExportedHandler<DashboardBindings>;
