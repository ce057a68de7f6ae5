// The Worker: HTTP requests go to the app; the webhook queue's messages to its consumer
// (src/webhooks/delivery.ts); the hourly cron drops stored create replies and write receipts past
// 24 hours and events and delivery attempts past 30 days, and seals webhook secrets still in
// plaintext or under an old key (src/webhooks/reseal.ts); the two-minute cron queues events never
// queued.
//
// The app is imported on the first request, not at isolate start: the bundler turns the import
// into a lazily run module initialiser, so an isolate's global scope runs only this file, and the
// routes, their zod schemas and the libraries are built when a request first needs them.
import type { app } from './app.ts';
import type { WebhookMessage } from './webhooks/queue.ts';

import { CRONS } from './env.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';

/** The Worker, given how to get the app (the tests hand it one they loaded beforehand). */
export function createWorker(loadApp: () => Promise<{ app: typeof app }>) {
  return {
    async fetch(request, env, ctx) {
      return (await loadApp()).app.fetch(request, env, ctx);
    },
    async scheduled(controller, env) {
      const now = Date.now();
      if (controller.cron === CRONS.hourlyCleanUp) {
        const [{ prune }, { pruneDeliveries }, { pruneReceipts }, { resealSecrets }] = await Promise.all([
          import('./db/scenarios.ts'),
          import('./db/webhooks.ts'),
          import('./db/receipts.ts'),
          import('./webhooks/reseal.ts'),
        ]);
        await prune(env.DB, { repliesBefore: now - DAY_MS, eventsBefore: now - 30 * DAY_MS, throttlesBefore: now });
        await pruneDeliveries(env.DB, now - 30 * DAY_MS);
        await pruneReceipts(env.DB, now - DAY_MS);
        await resealSecrets(env.DB, env.WEBHOOK_SECRET_KEYS, now);
        return;
      }
      const { requeueUndispatched } = await import('./webhooks/requeue.ts');
      await requeueUndispatched(env.DB, env.WEBHOOK_QUEUE, now);
    },
    async queue(batch, env) {
      const { consumeWebhookBatch } = await import('./webhooks/delivery.ts');
      await consumeWebhookBatch(batch, env);
    },
  } satisfies ExportedHandler<Env, WebhookMessage>;
}

export default createWorker(() => import('./app.ts'));
