// The Worker: HTTP requests go to the app; the hourly cron drops stored create replies and delete
// receipts past 24 hours.
//
// The app is imported on the first request, not at isolate start: the bundler turns the import
// into a lazily run module initialiser, so an isolate's global scope runs only this file, and the
// routes, their zod schemas and the libraries are built when a request first needs them.
import type { app } from './app.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';

/** The Worker, given how to get the app (the tests hand it one they loaded beforehand). */
export function createWorker(loadApp: () => Promise<{ app: typeof app }>) {
  return {
    async fetch(request, env, ctx) {
      return (await loadApp()).app.fetch(request, env, ctx);
    },
    async scheduled(_controller, env) {
      const { pruneBefore } = await import('./db/scenarios.ts');
      await pruneBefore(env.DB, Date.now() - IDEMPOTENCY_TTL_MS);
    },
  } satisfies ExportedHandler<Env>;
}

export default createWorker(() => import('./app.ts'));
