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
import { getPath } from 'hono/utils/url';
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
 * The Worker of another binding that serves a request: `DASHBOARD` for `/dashboard` and paths
 * under it (the Developers section), `ADMIN` for `/admin` and paths under it (the admin API);
 * undefined for the API's own. Read off the URL string (no URL object, no regular expression), so
 * the API's requests pay next to nothing.
 */
export function servedElsewhere(url: string): 'DASHBOARD' | 'ADMIN' | undefined {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  if (path < 0) return undefined;
  if (url.startsWith('/dashboard', path)) return endsSegment(url, path + 10) ? 'DASHBOARD' : undefined;
  return forAdmin(url, path) ? 'ADMIN' : undefined;
}

/** Whether `url` at `at` ends a path segment: its end, a slash or the query string's start. */
function endsSegment(url: string, at: number): boolean {
  const next = url.charCodeAt(at);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */;
}

/**
 * Whether the path's first segment is `admin` as the app read it when it served the admin API
 * itself, so that every request it answered from the admin routes or their 404/405 still reaches
 * them: after empty segments (`//admin/accounts` is a 405 of /admin/accounts) and, for the rare
 * path with a `%` in it, percent-decoded as Hono decodes it (`/%61dmin/accounts` is routed there).
 */
function forAdmin(url: string, path: number): boolean {
  let at = path;
  while (url.charCodeAt(at) === 47) at++;
  if (url.startsWith('admin', at) && endsSegment(url, at + 5)) return true;
  const percent = url.indexOf('%', path);
  const query = url.indexOf('?', path);
  if (percent < 0 || (query >= 0 && percent > query)) return false;
  return /^\/+admin(?:\/|$)/.test(getPath({ url } as Request));
}

/**
 * The request with its body passed on through a pipe of this Worker's: the admin API refuses some
 * requests before reading their bodies (a wrong token, a body too large by its Content-Length),
 * and the runtime's own forwarding of the body then read the client's stream after the reply had
 * gone, an uncaught exception in this Worker's logs. Here that read ends the pipe, quietly. A
 * stated length stays stated (FixedLengthStream), so the admin Worker judges the body as before.
 */
function withOwnBody(request: Request, ctx: ExecutionContext): Request {
  if (request.body === null) return request;
  const length = request.headers.get('Content-Length');
  const pipe = length !== null && /^[0-9]{1,15}$/.test(length) && !request.headers.has('Transfer-Encoding') ? new FixedLengthStream(Number(length)) : new IdentityTransformStream();
  const forwarded = new Request(request, { body: pipe.readable });
  ctx.waitUntil(request.body.pipeTo(pipe.writable).catch(() => undefined));
  return forwarded;
}

export default {
  // The Developers section and the admin API are other Workers (dashboard/wrangler.toml,
  // admin/wrangler.toml), reached through the DASHBOARD and ADMIN service bindings: none of their
  // code is in this bundle.
  fetch: (request, env, ctx) => {
    const elsewhere = servedElsewhere(request.url);
    if (elsewhere === 'ADMIN') return env.ADMIN.fetch(withOwnBody(request, ctx));
    return elsewhere ? env[elsewhere].fetch(request) : app.fetch(request, env, ctx);
  },
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
