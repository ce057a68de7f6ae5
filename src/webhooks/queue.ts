// The webhook queue's messages and how they are sent. One `event` message per committed change
// (sent by the request after its commit, or by the cron); the consumer fans it out into one
// `delivery` message per subscribed endpoint, so each endpoint has its own attempts, backoff and
// dead-lettering, and a retry never goes to an endpoint that already answered.

// `database`: the database the event's account lives in (its index, 0 is DB), so the consumer
// reads the right one; absent in messages sent before accounts were spread (they are all in DB).
// `resend` (the dashboard's "resend"): delivered even if the endpoint already answered 2xx to it.
export type WebhookMessage =
  | { kind: 'event'; database?: number; eventId: string }
  | { kind: 'delivery'; database?: number; eventId: string; endpointId: string; resend?: true };

/** The dead-letter queue's name, as wrangler.toml names it (the consumer tells the queues apart by it). */
export const DEAD_LETTER_QUEUE = 'scenario-service-webhooks-dlq';

/** A queue's sendBatch takes at most 100 messages. */
const SEND_BATCH_MAX = 100;

export async function sendMessages(queue: Queue, messages: WebhookMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += SEND_BATCH_MAX) {
    await queue.sendBatch(messages.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body })));
  }
}

/** The delay before attempt `attempts + 1`: base × 2^(attempts − 1), capped at the queue's 12 hours. */
export function retryDelaySeconds(baseSeconds: number, attempts: number, maxSeconds: number): number {
  return Math.min(maxSeconds, Math.round(baseSeconds * 2 ** Math.max(0, attempts - 1)));
}
