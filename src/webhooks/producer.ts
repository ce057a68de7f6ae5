// The request side of delivery: after its change committed, the request hands the event to the
// queue in waitUntil, so the caller's reply waits for nothing more than its one D1 round trip.
// Every event is sent, whether or not an endpoint wants it: deciding that here would cost the
// request a D1 read; the consumer decides instead. A send that fails (or a Worker that stops
// before it) leaves the event unmarked, and the cron queues it (requeue.ts).
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { log } from '../http/log.ts';

export function queueEvent(c: Context<AppEnv>, eventId: string): void {
  // Async, so that even a send that throws at once (a missing binding) rejects here instead of
  // turning the committed change's reply into a 500.
  // The message names the request's database (its key's), where the consumer finds the event.
  const send = async () => c.env.WEBHOOK_QUEUE.send({ kind: 'event', database: c.get('database'), eventId });
  c.executionCtx.waitUntil(
    send().catch((error: unknown) => {
      log('error', 'event not queued; the cron will queue it', { event_id: eventId, error: error instanceof Error ? error.name : 'unknown' });
    }),
  );
}
