// D1's transient faults on every write that is not a scenario write (DECISIONS, third round: "Every
// write is retry-safe"): webhook endpoint create, delete, secret rotation and enable, admin account
// create, key create and revoke, and the delivery log. Each path runs 40 times, each request on its
// own D1 that fails a seeded quarter of its round trips before they run and a quarter after they
// commit (the reply lost), at most 3 per request so the retries get through. Afterwards D1 is read
// back: every request got the answer its change deserved (no 500 or 503, no 404 or 409 for its own
// change), and D1 holds exactly what was acknowledged (no orphan, no duplicate).
import { env } from 'cloudflare:workers';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createAccount, createAccountWithKey, createKey, createScenario } from './helpers/api.ts';
import { faultyD1, seededRandom } from './helpers/faulty-d1.ts';
import { hookUrl, received, receiverName, registerEndpoint } from './helpers/webhooks.ts';
import { sendOn } from './helpers/worker-on.ts';
import { consumeWebhookBatch } from '../src/webhooks/delivery.ts';
import { keyRing, openSecret } from '../src/webhooks/secret-box.ts';
import type { WebhookMessage } from '../src/webhooks/queue.ts';
import { everyDb } from './helpers/databases.ts';
import { databaseOfId } from '../src/db/databases.ts';
import { summary } from './helpers/summary.ts';

const RUNS = 40;
const random = seededRandom(20261123);

interface Tally {
  requests: number;
  calls: number;
  before: number;
  after: number;
  /** HTTP statuses, or the queue message's outcome (ack, retry). */
  outcomes: Record<string, number>;
}
const tallies = new Map<string, Tally>();

/** A D1 failing a quarter of round trips before and a quarter after commit (at most 3 per request), counted under `path`. */
function faulty(path: string) {
  const d1 = faultyD1((n) => {
    if (n > 3) return undefined;
    const roll = random();
    return roll < 0.25 ? 'before' : roll < 0.5 ? 'after' : undefined;
  });
  const tally = tallies.get(path) ?? { requests: 0, calls: 0, before: 0, after: 0, outcomes: {} };
  tallies.set(path, tally);
  return {
    d1,
    done(outcome: number | string) {
      tally.requests += 1;
      tally.calls += d1.calls;
      tally.before += d1.injected.before;
      tally.after += d1.injected.after;
      tally.outcomes[outcome] = (tally.outcomes[outcome] ?? 0) + 1;
    },
  };
}

async function send(path: string, key: string, method: string, url: string, body?: unknown) {
  const { d1, done } = faulty(path);
  const res = await sendOn(d1, key, method, url, body);
  done(res.status);
  return res;
}

/** The secret an endpoint row holds now (current and previous), opened with the test key. */
async function storedSecrets(endpointId: string) {
  const row = await everyDb.prepare('select secret, secret_key_id, previous_secret, previous_secret_key_id from webhook_endpoints where id = ?')
    .bind(endpointId)
    .first<{ secret: string; secret_key_id: string | null; previous_secret: string | null; previous_secret_key_id: string | null }>();
  if (!row) return null;
  const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
  return {
    current: await openSecret(ring, endpointId, { keyId: row.secret_key_id, sealed: row.secret }),
    previous: row.previous_secret === null ? null : await openSecret(ring, endpointId, { keyId: row.previous_secret_key_id, sealed: row.previous_secret }),
  };
}

const count = (sql: string, ...values: unknown[]) => everyDb.count(sql, ...values);

afterAll(() => {
  for (const [path, t] of tallies) {
    summary(`faults/${path}: ${t.requests} requests, ${t.calls} round trips, ${t.before} failed before, ${t.after} after commit; answers ${JSON.stringify(t.outcomes)}`);
  }
});

describe(`every other write, ${RUNS} times each, a quarter of round trips failing before and a quarter after commit`, { timeout: 120_000 }, () => {
  it('endpoint create: 201 every time, one endpoint per request, whose stored secret is the one returned', async () => {
    for (let i = 0; i < RUNS; i++) {
      const { account, key } = await createAccountWithKey();
      // Nine already: the retry of a committed create sees ten, and must still answer 201.
      if (i % 4 === 0) for (let j = 0; j < 9; j++) await registerEndpoint(key, `https://hooks.example.com/${j}`);
      const before = await count('select count(*) as n from webhook_endpoints where account_id = ?', account.id);
      const res = await send('endpoint create', key, 'POST', '/webhook_endpoints', { url: 'https://hooks.example.com/new' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await count('select count(*) as n from webhook_endpoints where account_id = ?', account.id)).toBe(before + 1);
      expect((await storedSecrets(res.body.id))?.current).toBe(res.body.secret);
    }
    expect(tallies.get('endpoint create')!.after).toBeGreaterThan(5);
  });

  it('endpoint delete: 204 every time (never the 404 of its own committed delete), and the endpoint gone', async () => {
    const { account, key } = await createAccountWithKey();
    for (let i = 0; i < RUNS; i++) {
      const { id } = await registerEndpoint(key, 'https://hooks.example.com/gone');
      const res = await send('endpoint delete', key, 'DELETE', `/webhook_endpoints/${id}`);
      expect(res.status).toBe(204);
      expect(await count('select count(*) as n from webhook_endpoints where account_id = ?', account.id)).toBe(0);
    }
    expect(tallies.get('endpoint delete')!.after).toBeGreaterThan(5);
  });

  it('secret rotation: 200 every time, rotated exactly once (the old secret is the previous one, not the new one)', async () => {
    const { key } = await createAccountWithKey();
    const endpoint = await registerEndpoint(key, 'https://hooks.example.com/rotated');
    let current = endpoint.secret;
    for (let i = 0; i < RUNS; i++) {
      const res = await send('secret rotation', key, 'POST', `/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 3600 });
      expect(res.status).toBe(200);
      expect(await storedSecrets(endpoint.id)).toEqual({ current: res.body.secret, previous: current });
      current = res.body.secret;
    }
    expect(tallies.get('secret rotation')!.after).toBeGreaterThan(5);
  });

  it('endpoint enable: 200 every time, and the endpoint enabled', async () => {
    const { key } = await createAccountWithKey();
    const { id } = await registerEndpoint(key, 'https://hooks.example.com/enabled');
    for (let i = 0; i < RUNS; i++) {
      await everyDb.prepare("update webhook_endpoints set status = 'disabled', failing_since = 1 where id = ?").bind(id).run();
      const res = await send('endpoint enable', key, 'POST', `/webhook_endpoints/${id}/enable`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('enabled');
      expect(await everyDb.prepare('select status, failing_since from webhook_endpoints where id = ?').bind(id).first()).toEqual({ status: 'enabled', failing_since: null });
    }
  });

  it('account create: 201 every time (never the 409 of its own committed create), one account per e-mail address', async () => {
    for (let i = 0; i < RUNS; i++) {
      const email = `faults-${i}-${crypto.randomUUID()}@example.com`;
      const res = await send('account create', ADMIN_TOKEN, 'POST', '/admin/accounts', { name: `Faults ${i}`, email });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const rows = await everyDb.prepare('select id from accounts where email = ?').bind(email).all<{ id: number }>();
      expect(rows.results).toEqual([{ id: res.body.id }]);
    }
    // A different request with a taken address is still a 409.
    const taken = await createAccount();
    expect((await send('account create (taken e-mail)', ADMIN_TOKEN, 'POST', '/admin/accounts', { name: 'Again', email: taken.email })).status).toBe(409);
    expect(tallies.get('account create')!.after).toBeGreaterThan(5);
  });

  it('key create: 201 every time, one key per request (no live key nobody holds), and the key returned works', async () => {
    const account = await createAccount();
    for (let i = 0; i < RUNS; i++) {
      const res = await send('key create', ADMIN_TOKEN, 'POST', `/admin/accounts/${account.id}/keys`, { name: `k${i}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await count('select count(*) as n from api_keys where account_id = ?', account.id)).toBe(i + 1);
      expect((await sendOn(faultyD1(() => undefined), res.body.key, 'GET', '/me')).status).toBe(200);
    }
    expect(tallies.get('key create')!.after).toBeGreaterThan(5);
  });

  it('key revoke: 200 every time, revoked at the first revocation', async () => {
    const account = await createAccount();
    for (let i = 0; i < RUNS; i++) {
      const { id } = await createKey(account.id);
      const res = await send('key revoke', ADMIN_TOKEN, 'DELETE', `/admin/keys/${id}`);
      expect(res.status).toBe(200);
      const row = await everyDb.prepare('select revoked_at from api_keys where id = ?').bind(id).first<{ revoked_at: number }>();
      expect(res.body.revoked_at).not.toBeNull();
      expect(new Date(res.body.revoked_at).getTime()).toBe(row!.revoked_at);
    }
  });

  it('delivery log: one attempt row per attempt, however often recording it is retried', async () => {
    const { account, key } = await createAccountWithKey();
    const name = receiverName();
    await createScenario(key);
    // Registered after the event: the queue's own fan-out leaves it out, so only this test's messages reach it.
    const endpoint = await registerEndpoint(key, hookUrl(name, 'fail=all&status=503'));
    const { id: eventId } = (await everyDb.prepare('select e.id from events e join webhook_endpoints w on w.account_id = e.account_id where w.id = ?').bind(endpoint.id).first<{ id: string }>())!;
    // The consumer as the queue runs it, on a faulty D1: each message is an attempt of its own.
    for (let attempt = 1; attempt <= RUNS; attempt++) {
      const { d1, done } = faulty('delivery log');
      let outcome = '';
      const message = {
        id: `faults-${endpoint.id}`,
        attempts: attempt,
        timestamp: new Date(),
        body: { kind: 'delivery', database: databaseOfId(account.id), eventId, endpointId: endpoint.id } as WebhookMessage,
        ack: () => void (outcome = 'ack'),
        retry: () => void (outcome = 'retry'),
      };
      await consumeWebhookBatch({ queue: 'scenario-service-webhooks', messages: [message] } as unknown as MessageBatch<WebhookMessage>, { ...env, ...d1.bindings });
      done(outcome);
      expect(outcome).toBe('retry');
    }
    const rows = await everyDb.prepare('select attempt, attempt_key from webhook_deliveries where endpoint_id = ? order by attempt').bind(endpoint.id).all<{ attempt: number; attempt_key: string }>();
    // Attempts numbered 1..n without a gap or a repeat, one per queue attempt, each key once.
    expect(rows.results.map((r) => r.attempt)).toEqual(Array.from({ length: RUNS }, (_, i) => i + 1));
    expect(new Set(rows.results.map((r) => r.attempt_key)).size).toBe(RUNS);
    // Posted once per queue attempt: a D1 retry repeats the record, never the POST.
    expect((await received(name)).length).toBe(RUNS);
    expect(tallies.get('delivery log')!.after).toBeGreaterThan(5);
  });
});
