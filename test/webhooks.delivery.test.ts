// Delivery through the real queue of the vitest plugin (wrangler.toml's producer, consumer and
// dead-letter queue), to a real HTTP receiver on loopback (test/receiver/server.ts). The tests run
// with WEBHOOK_RETRY_BASE_SECONDS = 0, so retries follow each other within the queue's 1 s batch
// timeout; the production schedule is checked from wrangler.toml below.
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import wranglerToml from '../wrangler.toml?raw';
import { hashApiKey } from '../src/auth/api-key.ts';
import { MAX_RETRY_DELAY_SECONDS } from '../src/webhooks/limits.ts';
import { keyed } from '../src/auth/keyed.ts';
import { readConfig } from '../src/env.ts';
import { retryDelaySeconds } from '../src/webhooks/queue.ts';
import { createScenario as createScenarioDirectly, newEventId } from '../src/scenarios/workflows.ts';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import worker from './worker-entry.ts';
import { api, createAccountWithKey, createScenario, dbOf, scenarioData } from './helpers/api.ts';
import { eventually, hookUrl, received, receiverName, registerEndpoint, verified } from './helpers/webhooks.ts';
import { everyDb } from './helpers/databases.ts';

type Attempt = { id: number; event_id: string; attempt: number; status: number | null; error: string | null; dead_lettered: boolean };

async function attempts(key: string, endpointId: string): Promise<Attempt[]> {
  const res = await api(key).get(`/webhook_endpoints/${endpointId}/deliveries?limit=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook delivery', { timeout: 30_000 }, () => {
  it('delivers created, saved and deleted, each signed (verified by standardwebhooks)', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    const { token } = await createScenario(key);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) })).status).toBe(200);
    expect((await api(key).delete(`/scenarios/${token}`)).status).toBe(200);

    const deliveries = await eventually(() => received(name), (list) => list.length >= 3);
    expect(deliveries).toHaveLength(3);
    const events = deliveries.map((d) => verified(d, endpoint.secret));
    expect(events.map((e) => e.type).sort()).toEqual(['scenario.created', 'scenario.deleted', 'scenario.saved']);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(byType['scenario.created']?.data).toEqual({ token, version: 1 });
    expect(byType['scenario.saved']?.data).toEqual({ token, version: 2 });
    expect(byType['scenario.deleted']?.data).toEqual({ token });
    // The body is the event as GET /events lists it, and webhook-id is its id.
    const listed = (await api(key).get('/events')).body.data;
    expect(new Set(events)).toEqual(new Set(listed));
    for (const delivery of deliveries) {
      expect(delivery.headers['webhook-id']).toBe(JSON.parse(delivery.body).id);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    // A wrong secret does not verify: the check above can fail.
    expect(() => verified(deliveries[0]!, 'whsec_' + btoa('x'.repeat(32)))).toThrow();
    const recorded = await eventually(() => attempts(key, endpoint.id), (list) => list.length >= 3);
    expect(recorded.map((a) => [a.attempt, a.status, a.error, a.dead_lettered])).toEqual([
      [1, 204, null, false],
      [1, 204, null, false],
      [1, 204, null, false],
    ]);
  });

  it('retries a failing receiver with the same webhook-id, and records each attempt', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name, 'fail=2&status=503'));
    await createScenario(key);
    const deliveries = await eventually(() => received(name), (list) => list.length >= 3);
    expect(deliveries.map((d) => d.answered)).toEqual([503, 503, 204]);
    expect(new Set(deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
    for (const delivery of deliveries) verified(delivery, endpoint.secret);
    const recorded = await eventually(() => attempts(key, endpoint.id), (list) => list.length >= 3);
    expect(recorded.map((a) => [a.attempt, a.status, a.dead_lettered])).toEqual([
      [3, 204, false],
      [2, 503, false],
      [1, 503, false],
    ]);
    // Delivered: no further attempt follows.
    await sleep(2500);
    expect(await received(name)).toHaveLength(3);
  });

  it('never re-delivers to an endpoint that answered while another is retried', async () => {
    const { key } = await createAccountWithKey();
    const good = receiverName();
    const bad = receiverName();
    await registerEndpoint(key, hookUrl(good));
    await registerEndpoint(key, hookUrl(bad, 'fail=3'));
    await createScenario(key);
    await eventually(() => received(bad), (list) => list.length >= 4);
    expect(await received(good)).toHaveLength(1);
  });

  it('dead-letters after the last attempt (max_retries + 1) and marks it', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name, 'fail=all&status=500'));
    await createScenario(key);
    const maxAttempts = deliveryQueue().max_retries + 1;
    const recorded = await eventually(() => attempts(key, endpoint.id), (list) => list[0]?.dead_lettered === true, 40_000);
    expect(recorded).toHaveLength(maxAttempts);
    expect(recorded.map((a) => a.attempt)).toEqual(Array.from({ length: maxAttempts }, (_, i) => maxAttempts - i));
    expect(recorded.map((a) => a.dead_lettered)).toEqual([true, ...Array(maxAttempts - 1).fill(false)]);
    await sleep(2500);
    expect(await received(name)).toHaveLength(maxAttempts);
  }, 60_000);

  it('records a receiver that cannot be reached as an error without a status', async () => {
    const { key } = await createAccountWithKey();
    // A loopback port nothing listens on (9, discard).
    const endpoint = await registerEndpoint(key, 'http://127.0.0.1:9/hook');
    await createScenario(key);
    const [first] = await eventually(() => attempts(key, endpoint.id), (list) => list.length >= 1);
    expect(first).toMatchObject({ attempt: 1, status: null, error: 'connection failed' });
    expect((await api(key).delete(`/webhook_endpoints/${endpoint.id}`)).status).toBe(204);
  });

  it('sends only the event types an endpoint asked for', async () => {
    const { key } = await createAccountWithKey();
    const deletes = receiverName();
    const all = receiverName();
    await registerEndpoint(key, hookUrl(deletes), { event_types: ['scenario.deleted'] });
    await registerEndpoint(key, hookUrl(all));
    const { token } = await createScenario(key);
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() });
    await api(key).delete(`/scenarios/${token}`);
    await eventually(() => received(all), (list) => list.length >= 3);
    await sleep(1500);
    const got = await received(deletes);
    expect(got.map((d) => JSON.parse(d.body).type)).toEqual(['scenario.deleted']);
  });

  it('delivers nothing to a deleted endpoint, retries included, nor to another account', async () => {
    const { key } = await createAccountWithKey();
    const other = await createAccountWithKey();
    const retried = receiverName();
    const gone = receiverName();
    const foreign = receiverName();
    const failing = await registerEndpoint(key, hookUrl(retried, 'fail=all'));
    const deleted = await registerEndpoint(key, hookUrl(gone));
    await registerEndpoint(other.key, hookUrl(foreign));
    expect((await api(key).delete(`/webhook_endpoints/${deleted.id}`)).status).toBe(204);
    await createScenario(key);
    await eventually(() => received(retried), (list) => list.length >= 1);
    expect((await api(key).delete(`/webhook_endpoints/${failing.id}`)).status).toBe(204);
    const afterDelete = (await received(retried)).length;
    await sleep(3000);
    // At most the attempt already under way when the endpoint went.
    expect((await received(retried)).length).toBeLessThanOrEqual(afterDelete + 1);
    expect(await received(gone)).toEqual([]);
    expect(await received(foreign)).toEqual([]);
  });

  it('an endpoint receives the changes made after it was registered, not earlier ones', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const { token } = await createScenario(key);
    await registerEndpoint(key, hookUrl(name));
    await sleep(5);
    await api(key).delete(`/scenarios/${token}`);
    const got = await eventually(() => received(name), (list) => list.length >= 1);
    await sleep(1500);
    expect((await received(name)).map((d) => JSON.parse(d.body).type)).toEqual(['scenario.deleted']);
    expect(got).toHaveLength(1);
  });

  it('the cron queues an event whose change committed but was never queued', async () => {
    const { account, key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    // The change made as a request makes it, minus the route's queue send: as if the Worker stopped
    // right after the commit.
    const eventId = newEventId();
    const input = ScenarioDataInputSchema.parse(scenarioData());
    const keyCheck = { keyHash: await hashApiKey(key), now: Date.now(), address: 'cron-test' };
    await createScenarioDirectly(keyed(dbOf(account.id), keyCheck, 'write'), input, eventId);
    await sleep(1500);
    expect(await received(name)).toEqual([]);
    // A minute later (the grace period), the two-minute cron finds it unmarked.
    await everyDb.prepare('update events set created_at = created_at - 61000 where id = ?').bind(eventId).run();
    await everyDb.prepare('update webhook_endpoints set created_at = created_at - 61000 where id = ?').bind(endpoint.id).run();
    await worker.scheduled(createScheduledController({ cron: '*/2 * * * *', scheduledTime: Date.now() }), env);
    const got = await eventually(() => received(name), (list) => list.length >= 1);
    expect(verified(got[0]!, endpoint.secret).id).toBe(eventId);
    const marked = await everyDb.prepare('select dispatched_at from events where id = ?').bind(eventId).first<{ dispatched_at: number | null }>();
    expect(marked?.dispatched_at).not.toBeNull();
  });

  it('pages the deliveries list like the other lists', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    for (let i = 0; i < 3; i++) await createScenario(key);
    const all = await eventually(() => attempts(key, endpoint.id), (list) => list.length >= 3);
    const first = await api(key).get(`/webhook_endpoints/${endpoint.id}/deliveries?limit=2`);
    expect(first.body).toEqual({ data: all.slice(0, 2), has_more: true });
    const next = await api(key).get(`/webhook_endpoints/${endpoint.id}/deliveries?limit=2&starting_after=${all[1]?.id}`);
    expect(next.body).toEqual({ data: all.slice(2), has_more: false });
    const back = await api(key).get(`/webhook_endpoints/${endpoint.id}/deliveries?limit=2&endding_before=${all[2]?.id}`);
    expect(back.body).toEqual({ data: all.slice(0, 2), has_more: false });
    const both = await api(key).get(`/webhook_endpoints/${endpoint.id}/deliveries?starting_after=1&ending_before=2`);
    expect(both.status).toBe(400);
  });
});

/** wrangler.toml's consumer of the delivery queue (the one with a dead-letter queue). */
function deliveryQueue(): { max_retries: number } {
  const consumer = wranglerToml.split('[[queues.consumers]]').find((section) => /^dead_letter_queue\s*=/m.test(section));
  const maxRetries = /^max_retries\s*=\s*(\d+)/m.exec(consumer ?? '')?.[1];
  if (maxRetries === undefined) throw new Error('no consumer with a dead-letter queue and max_retries in wrangler.toml');
  return { max_retries: Number(maxRetries) };
}

function wranglerVar(name: string): string | undefined {
  return new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, 'm').exec(wranglerToml)?.[1];
}

describe('the retry schedule', () => {
  it('doubles from the base delay, capped at the queue maximum', () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(300, n, MAX_RETRY_DELAY_SECONDS))).toEqual([300, 600, 1200, 2400]);
    expect(retryDelaySeconds(300, 20, MAX_RETRY_DELAY_SECONDS)).toBe(MAX_RETRY_DELAY_SECONDS);
    const base = (value: string) => readConfig({ WEBHOOK_RETRY_BASE_SECONDS: value }).webhookRetryBaseSeconds;
    expect([base(''), base('nonsense'), base('0')]).toEqual([300, 300, 0]);
  });

  it('in production (wrangler.toml): at least 6 attempts over at least 6 hours', () => {
    const base = readConfig({ WEBHOOK_RETRY_BASE_SECONDS: wranglerVar('WEBHOOK_RETRY_BASE_SECONDS') }).webhookRetryBaseSeconds;
    expect(base).toBe(Number(wranglerVar('WEBHOOK_RETRY_BASE_SECONDS')));
    const attempts = deliveryQueue().max_retries + 1;
    const span = Array.from({ length: attempts - 1 }, (_, i) => retryDelaySeconds(base, i + 1, MAX_RETRY_DELAY_SECONDS)).reduce((a, b) => a + b, 0);
    expect(attempts).toBeGreaterThanOrEqual(6);
    expect(span).toBeGreaterThanOrEqual(6 * 3600);
    expect(wranglerVar('WEBHOOK_ALLOW_LOOPBACK')).toBe('false');
  });
});
