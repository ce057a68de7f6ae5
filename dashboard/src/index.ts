// The dashboard Worker (dashboard/wrangler.toml): its pages, reached through the API Worker's
// DASHBOARD service binding, and a daily clean-up of the audit log (1 year), sign-in links and
// ended sessions.
import { forEachDatabase } from '../../src/db/databases.ts';
import { readDatabases } from '../../src/env.ts';
import type { DashboardBindings } from './env.ts';
import { serveDashboard } from './moved.ts';
import { prune } from './workflows.ts';

export default {
  fetch: (request, env, ctx) => serveDashboard(request, env, ctx),
  async scheduled(_controller, env) {
    // Every database: each holds its own accounts' sessions, links and audit rows.
    const now = Date.now();
    await forEachDatabase(readDatabases(env), (db) => prune(db, now));
  },
} satisfies ExportedHandler<DashboardBindings>;
