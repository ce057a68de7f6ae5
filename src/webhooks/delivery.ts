// The queue consumer. An `event` message is fanned out into one `delivery` message per endpoint
// that wants it (and the event marked taken, so the cron leaves it alone); a `delivery` message
// POSTs the event to its endpoint, signed, and records the attempt. A non-2xx answer, a timeout or
// a network error is retried with exponential backoff; after the queue's max_retries the message
// goes to the dead-letter queue, whose consumer marks the last attempt dead-lettered.
import { dispatchEvent } from '../db/events.ts';
import type { Event, WebhookEndpoint } from '../db/schema.ts';
import { findDeliveryTarget, markDeadLettered, recordAttempt } from '../db/webhooks.ts';
import { toEventForm } from '../events/forms.ts';
import { log } from '../http/log.ts';
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, MAX_RETRY_DELAY_SECONDS } from './limits.ts';
import { readConfig, readDatabases } from '../env.ts';
import { DEAD_LETTER_QUEUE, retryDelaySeconds, sendMessages, type WebhookMessage } from './queue.ts';
import { keyRing, openSecret } from './secret-box.ts';
import { signDelivery } from './signing.ts';
import { checkWebhookUrl } from './url-rules.ts';

/** What the consumer uses of the Worker's environment (DB_2, DB_3, … too, when bound: env.ts `readDatabases`). */
export interface DeliveryEnv {
  DB: D1Database;
  WEBHOOK_QUEUE: Queue;
  WEBHOOK_RETRY_BASE_SECONDS: string;
  WEBHOOK_ALLOW_LOOPBACK: string;
  /** The keys that open the stored secrets (secret-box.ts). */
  WEBHOOK_SECRET_KEYS?: string;
}

type Outcome = 'done' | 'retry';

/** Fans an event out to its endpoints. Run again (a redelivery, the cron), it sends them again: a delivery skips an endpoint that already answered. */
async function fanOut(env: DeliveryEnv, db: D1Database, database: number, eventId: string): Promise<Outcome> {
  const { event, endpointIds } = await dispatchEvent(db, eventId, Date.now());
  if (!event) return 'done';
  await sendMessages(env.WEBHOOK_QUEUE, endpointIds.map((endpointId) => ({ kind: 'delivery', database, eventId, endpointId })));
  return 'done';
}

/**
 * The request a receiver gets: the event's JSON, signed as Standard Webhooks specifies, once per
 * secret (the current one first; after a rotation, the previous one too until it expires), the
 * signatures separated by spaces (`v1,<new> v1,<old>`).
 */
export async function deliveryRequest(event: Event, secrets: string[], nowMs: number): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify(toEventForm(event));
  const timestamp = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'scenario-service-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': (await Promise.all(secrets.map((secret) => signDelivery(secret, event.id, timestamp, body)))).join(' '),
    },
  };
}

/** One POST; its status, or why there was none. Redirects are not followed (they could lead anywhere). */
async function post(url: string, request: { body: string; headers: Record<string, string> }): Promise<{ status: number | null; error: string | null }> {
  try {
    const response = await fetch(url, { method: 'POST', ...request, redirect: 'manual', signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    await response.body?.cancel();
    return { status: response.status, error: null };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    return { status: null, error: name === 'TimeoutError' ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : 'connection failed' };
  }
}

/** The secrets that sign a delivery now: the current one, and the previous one until it expires. */
async function signingSecrets(env: DeliveryEnv, endpoint: WebhookEndpoint, now: number): Promise<string[]> {
  const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
  const secrets = [await openSecret(ring, endpoint.id, { keyId: endpoint.secretKeyId, sealed: endpoint.secret })];
  if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now) {
    secrets.push(await openSecret(ring, endpoint.id, { keyId: endpoint.previousSecretKeyId, sealed: endpoint.previousSecret }));
  }
  return secrets;
}

/**
 * `attemptKey` names this attempt (the message and its attempt number), so it is recorded once.
 * `resend`: the dashboard's "resend", delivered even though the endpoint answered it before.
 */
async function deliver(env: DeliveryEnv, db: D1Database, eventId: string, endpointId: string, attemptKey: string, resend: boolean): Promise<Outcome> {
  const { event, endpoint, delivered } = await findDeliveryTarget(db, endpointId, eventId);
  // Deleted endpoints get nothing; pruned events cannot be sent; answered ones are not sent twice.
  if (!event || !endpoint || (delivered && !resend)) return 'done';
  // An event goes only to its own account's endpoints, whatever a message says (the fan-out asks
  // the same; a message made otherwise, or a bug, must not carry one account's events to another).
  if (endpoint.accountId !== event.accountId) {
    log('error', 'webhook delivery refused: the endpoint belongs to another account', { event_id: eventId, endpoint_id: endpointId });
    return 'done';
  }
  // Disabled (every attempt failed for 3 days, or by its owner): no more deliveries.
  if (endpoint.status !== 'enabled') return 'done';
  const record = (result: { status: number | null; error: string | null }) => {
    const answered = result.status !== null && result.status >= 200 && result.status < 300 ? 1 : 0;
    return recordAttempt(db, { endpointId, eventId, ...result, answered, attemptKey, disableAfterMs: DISABLE_AFTER_FAILING_MS, now: Date.now() });
  };
  // Checked again: the rules (or WEBHOOK_ALLOW_LOOPBACK) may have changed since the endpoint was made.
  const config = readConfig(env);
  const verdict = checkWebhookUrl(endpoint.url, config.webhookAllowLoopback, [config.publicOrigin]);
  if (!verdict.ok) {
    await record({ status: null, error: `URL refused: it ${verdict.reason}`.slice(0, 200) });
    return 'done';
  }
  const now = Date.now();
  const result = await post(verdict.url, await deliveryRequest(event, await signingSecrets(env, endpoint, now), now));
  await record(result);
  return result.status !== null && result.status >= 200 && result.status < 300 ? 'done' : 'retry';
}

/**
 * The database a message's event is in: the one it names (its account's), or the first for a
 * message sent before messages named one. Unbound (a binding taken away): the error retries the
 * message, and the dead-letter queue ends it.
 */
function databaseOf(env: DeliveryEnv, body: WebhookMessage): { db: D1Database; database: number } {
  const database = body.database ?? 0;
  const db = readDatabases(env)[database];
  if (!db) throw new Error(`webhook message names database ${database}, which is not bound`);
  return { db, database };
}

async function handle(env: DeliveryEnv, message: Message<WebhookMessage>): Promise<Outcome> {
  const body = message.body;
  const { db, database } = databaseOf(env, body);
  return body.kind === 'event'
    ? fanOut(env, db, database, body.eventId)
    : deliver(env, db, body.eventId, body.endpointId, `${message.id}:${message.attempts}`, body.resend === true);
}

/** The dead-letter queue: the delivery was given up; its last attempt says so. */
async function deadLetter(env: DeliveryEnv, message: Message<WebhookMessage>): Promise<void> {
  const body = message.body;
  log('error', 'webhook message dead-lettered', { kind: body.kind, event_id: body.eventId, endpoint_id: body.kind === 'delivery' ? body.endpointId : null });
  if (body.kind === 'delivery') await markDeadLettered(databaseOf(env, body).db, body.endpointId, body.eventId);
}

/** The Worker's queue handler: each message acked when handled, retried with backoff when not. */
export async function consumeWebhookBatch(batch: MessageBatch<WebhookMessage>, env: DeliveryEnv): Promise<void> {
  const base = readConfig(env).webhookRetryBaseSeconds;
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        if (batch.queue === DEAD_LETTER_QUEUE) {
          await deadLetter(env, message);
          message.ack();
          return;
        }
        if ((await handle(env, message)) === 'done') message.ack();
        else message.retry({ delaySeconds: retryDelaySeconds(base, message.attempts, MAX_RETRY_DELAY_SECONDS) });
      } catch (error) {
        // D1 or the queue failed us: the same backoff, and the message is handled again.
        log('error', 'webhook message failed', { kind: message.body.kind, event_id: message.body.eventId, error: error instanceof Error ? error.name : 'unknown' });
        message.retry({ delaySeconds: retryDelaySeconds(base, message.attempts, MAX_RETRY_DELAY_SECONDS) });
      }
    }),
  );
}

