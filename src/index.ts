// The Worker: HTTP requests go to the app; the hourly cron drops idempotency records past 24 hours.
import { app } from './app.ts';
import { deleteIdempotencyRecordsBefore } from './db/idempotency.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';
export { app };

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await deleteIdempotencyRecordsBefore(env.DB, Date.now() - IDEMPOTENCY_TTL_MS);
  },
} satisfies ExportedHandler<Env>;
