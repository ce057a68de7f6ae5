// The Worker: HTTP requests go to the app; the webhook queue's messages to its consumer
// (src/webhooks/delivery.ts); the hourly cron drops stored create replies and write receipts past
// 24 hours and events and delivery attempts past 30 days, and seals webhook secrets still in
// plaintext or under an old key (src/webhooks/reseal.ts); the two-minute cron queues events never
// queued.
//
// The app is built in the global scope: Cloudflare runs it while the TLS handshake of the first
// request is still under way, where it is partly hidden, so the first request costs what any
// other does (`npm run bench:startup`). The cron and queue code is imported when its event comes:
// bundled, that import is a module initialiser run then, not at isolate start.
import { app } from './app.ts';
import { CRONS } from './env.ts';
import type { WebhookMessage } from './webhooks/queue.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';

export default {
  fetch: app.fetch,
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
