// The Worker: HTTP requests go to the app; the hourly cron drops stored create replies and delete
// receipts past 24 hours.
import { app } from './app.ts';
import { pruneBefore } from './db/scenarios.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';
export { app };

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await pruneBefore(env.DB, Date.now() - IDEMPOTENCY_TTL_MS);
  },
} satisfies ExportedHandler<Env>;
