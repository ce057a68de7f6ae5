// The Worker: HTTP requests go to the app; the webhook queue's messages to its consumer
// (src/webhooks/delivery.ts); the hourly cron drops stored create replies and write receipts past
// 24 hours and events and delivery attempts past 30 days, seals webhook secrets still in
// plaintext or under an old key (src/webhooks/reseal.ts) and records each database's size
// (src/db/sizes.ts); the two-minute cron queues events never queued.
//
// The app is built in the global scope: Cloudflare runs it while the TLS handshake of the first
// request is still under way, where it is partly hidden, so the first request costs what any
// other does (`npm run bench:startup`). The cron and queue code is imported statically too: a
// dynamic import() saved nothing at start (one bundle, which workerd compiles whole), and esbuild
// turned every module it reaches, the app's shared ones included, into a lazily run initialiser,
// which made the global scope some 5 ms slower (bench/README.md).
import { app } from './app.ts';
import { forEachDatabase } from './db/databases.ts';
import { pruneReceipts } from './db/receipts.ts';
import { prune } from './db/scenarios.ts';
import { measureDatabaseSize, recordDatabaseSize } from './db/sizes.ts';
import { pruneDeliveries } from './db/webhooks.ts';
import { CRONS, readDatabases } from './env.ts';
import { consumeWebhookBatch } from './webhooks/delivery.ts';
import type { WebhookMessage } from './webhooks/queue.ts';
import { requeueUndispatched } from './webhooks/requeue.ts';
import { resealSecrets } from './webhooks/reseal.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export type { AppType } from './app.ts';

/**
 * Whether a request is for the Developers section: `/dashboard` or a path under it. Read off the
 * URL string (no URL object, no regular expression), so the API's requests pay next to nothing.
 */
export function forDashboard(url: string): boolean {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  if (path < 0 || !url.startsWith('/dashboard', path)) return false;
  const next = url.charCodeAt(path + 10);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */;
}

export default {
  // The Developers section is another Worker (dashboard/wrangler.toml), reached through the
  // DASHBOARD service binding: none of its code is in this bundle.
  fetch: (request, env, ctx) => (forDashboard(request.url) ? env.DASHBOARD.fetch(request) : app.fetch(request, env, ctx)),
  async scheduled(controller, env) {
    const now = Date.now();
    if (controller.cron === CRONS.hourlyCleanUp) {
      const databases = readDatabases(env);
      await forEachDatabase(databases, async (db, database) => {
        await prune(db, { repliesBefore: now - DAY_MS, eventsBefore: now - 30 * DAY_MS, throttlesBefore: now });
        await pruneDeliveries(db, now - 30 * DAY_MS);
        await pruneReceipts(db, now - DAY_MS);
        await resealSecrets(db, env.WEBHOOK_SECRET_KEYS, now);
        // Its size after the prune, as D1 reports it: in itself and in the first database (src/db/sizes.ts).
        const bytes = await measureDatabaseSize(db);
        if (bytes !== null) await recordDatabaseSize(databases, database, bytes, now);
      });
      return;
    }
    await forEachDatabase(readDatabases(env), (db, database) => requeueUndispatched(db, env.WEBHOOK_QUEUE, now, database));
  },
  async queue(batch, env) {
    await consumeWebhookBatch(batch, env);
  },
} satisfies ExportedHandler<Env, WebhookMessage>;
