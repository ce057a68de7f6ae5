// The dashboard Worker (dashboard/wrangler.toml): its pages, reached through the API Worker's
// DASHBOARD service binding, and a daily clean-up of the audit log (1 year), sign-in links and
// ended sessions.
import { readDatabases } from '../env.ts';
import { dashboardApp } from './app.ts';
import type { DashboardBindings } from './env.ts';
import { prune } from './workflows.ts';

export default {
  fetch: (request, env, ctx) => dashboardApp.fetch(request, env, ctx),
  async scheduled(_controller, env) {
    // Every database (each holds its own accounts' sessions, links and audit rows); a failure in
    // one is thrown once the others are pruned.
    const now = Date.now();
    const failures: unknown[] = [];
    for (const db of readDatabases(env)) await prune(db, now).catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  },
} satisfies ExportedHandler<DashboardBindings>;
