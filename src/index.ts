// The Worker: HTTP requests go to the app; the hourly cron drops stored create replies past 24
// hours and events past 30 days.
//
// The app is imported on the first request, not at isolate start: the bundler turns the import
// into a lazily run module initialiser, so an isolate's global scope runs only this file, and the
// routes, their zod schemas and the libraries are built when a request first needs them.
import type { app } from './app.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';

/** The Worker, given how to get the app (the tests hand it one they loaded beforehand). */
export function createWorker(loadApp: () => Promise<{ app: typeof app }>) {
  return {
    async fetch(request, env, ctx) {
      return (await loadApp()).app.fetch(request, env, ctx);
    },
    async scheduled(_controller, env) {
      const { prune } = await import('./db/scenarios.ts');
      const now = Date.now();
      await prune(env.DB, { repliesBefore: now - DAY_MS, eventsBefore: now - 30 * DAY_MS, throttlesBefore: now });
    },
  } satisfies ExportedHandler<Env>;
}

export default createWorker(() => import('./app.ts'));
