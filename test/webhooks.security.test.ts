// Webhooks that cannot be turned on the service, and secrets sealed (DECISIONS, "Security rules of
// the third round"): canonical host names, the service's own origin, the consumer's account check,
// secrets encrypted at rest and rotated (both signatures until the old one expires, verified with
// `standardwebhooks`), plaintext secrets of older rows, and endpoints disabled after 3 days of
// failures and enabled again. Deliveries go through the real queue to the loopback receiver.
import { createScheduledController } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../src/webhooks/signing.ts';
import { keyRing, newKeyRingValue, openSecret, sealSecret } from '../src/webhooks/secret-box.ts';
import { resealSecrets } from '../src/webhooks/reseal.ts';
import { checkWebhookUrl } from '../src/webhooks/url-rules.ts';
import { DISABLE_AFTER_FAILING_MS } from '../src/webhooks/limits.ts';
import worker from './worker-entry.ts';
import { api, createAccountWithKey, createKey, createScenario, dbOf } from './helpers/api.ts';
import { checkAgainstDocument } from './helpers/openapi-check.ts';
import { eventually, hookUrl, received, receiverName, registerEndpoint, verified } from './helpers/webhooks.ts';
import { everyDb } from './helpers/databases.ts';
import { captureLogs } from './helpers/logs.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function endpointRow(id: string) {
  return everyDb.prepare('select * from webhook_endpoints where id = ?').bind(id).first<Record<string, string | number | null>>();
}

/** The hostnames of the finding, each with every trailing dot a resolver may forgive. */
const DOTTED = [
  'https://10.0.0.1../',
  'https://10.0.0.1.../',
  'https://169.254.169.254../latest/meta-data/',
  'https://metadata.google.internal../',
  'https://intranet../',
  'https://localhost../',
  'https://0x7f.1../',
  'https://2130706433../',
  'https://printer.local../',
  'https://.../',
];

describe('webhook URLs in canonical form', () => {
  it('refuses private hosts however many trailing dots they carry, and stores public ones without them', () => {
    for (const url of DOTTED) expect(checkWebhookUrl(url, false).ok, url).toBe(false);
    expect(checkWebhookUrl('https://hooks.example.com../x', false)).toEqual({ ok: true, url: 'https://hooks.example.com/x' });
    expect(checkWebhookUrl('https://HOOKS.example.com./x', false)).toEqual({ ok: true, url: 'https://hooks.example.com/x' });
  });

  it('the API refuses them with 422 naming url, and registers nothing', async () => {
    const { key } = await createAccountWithKey();
    for (const url of DOTTED.filter((u) => !checkWebhookUrl(u, true).ok)) {
      const res = await api(key).post('/webhook_endpoints', { url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0].path).toBe('url');
    }
    expect((await api(key).get('/webhook_endpoints')).body.data).toEqual([]);
  });

  it("refuses the service's own origin, in any spelling of it", async () => {
    const { key } = await createAccountWithKey();
    for (const url of ['https://scenario.test/admin/accounts', 'https://SCENARIO.test../admin/accounts', 'https://scenario.test:443/scenarios']) {
      const request = new Request('https://scenario.test/webhook_endpoints', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      const res = await exports.default.fetch(request);
      const text = await res.text();
      checkAgainstDocument('POST', '/webhook_endpoints', { status: res.status, headers: res.headers, text });
      expect(res.status, url).toBe(422);
      expect(JSON.parse(text).errors).toEqual([{ path: 'url', message: 'must not point at this service itself' }]);
    }
    // Another host on the same name's parent is not the service.
    expect(checkWebhookUrl('https://hooks.scenario.test/x', false, ['https://scenario.test']).ok).toBe(true);
  });

  it("refuses PUBLIC_ORIGIN, and where loopback is allowed every loopback name of the service's own port", async () => {
    // As under npm start: PUBLIC_ORIGIN is the local server, loopback endpoints are allowed.
    const own = ['http://127.0.0.1:8787'];
    const sameServer = [
      'http://127.0.0.1:8787/admin/accounts',
      'http://localhost:8787/',
      'http://LOCALHOST.:8787/',
      'http://api.localhost:8787/',
      'https://127.0.0.1:8787/',
      'http://2130706433:8787/',
      'http://0x7f.1:8787/',
      'http://0177.0.0.1:8787/',
      'http://127.1:8787/',
      'http://127.0.0.2:8787/',
      'http://[::1]:8787/',
      'http://[0:0:0:0:0:0:0:1]:8787/',
    ];
    for (const url of sameServer) expect(checkWebhookUrl(url, true, own).ok, url).toBe(false);
    // Another port on loopback is another server (a local receiver), and stays allowed.
    for (const url of ['http://127.0.0.1:8788/hooks', 'http://localhost:9999/', 'http://[::1]:8080/']) {
      expect(checkWebhookUrl(url, true, own).ok, url).toBe(true);
    }
    // The tests' PUBLIC_ORIGIN is https://scenarios.test (port 443), and they allow loopback: the
    // API refuses the origin itself and a loopback name of its port, naming url.
    const { key } = await createAccountWithKey();
    for (const url of ['https://scenarios.test/hooks', 'https://127.0.0.1/hooks', 'http://localhost:443/hooks', 'https://2130706433/']) {
      const res = await api(key).post('/webhook_endpoints', { url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0].path, url).toBe('url');
      expect(res.body.errors[0].message, url).toMatch(/^must not point at this service itself/);
    }
    expect((await api(key).get('/webhook_endpoints')).body.data).toEqual([]);
  });

  it('a delivery that reaches the admin API anyway (no credential) is never counted as a failed login', async () => {
    const address = { 'cf-connecting-ip': `198.51.100.${Math.floor(Math.random() * 250) + 1}` };
    const delivery = { ...address, 'webhook-id': 'evt_0', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA', 'User-Agent': 'scenario-service-webhooks/1' };
    for (let i = 0; i < 70; i++) {
      const res = await api(undefined, delivery).post('/admin/accounts', { id: 'evt_0', type: 'scenario.created' });
      expect(res.status).toBe(401);
    }
    // The address is not throttled: the admin token still works from it.
    const res = await api('test-admin-token-0123456789abcdefghijklmnop', address).post('/admin/accounts', { name: 'Still', email: `still-${Date.now()}@example.com` });
    expect(res.status).toBe(201);
  });
});

describe('secrets at rest', () => {
  // The 500s below log a server error on purpose: kept off the report, and checked.
  const logs = captureLogs();

  it('stores the secret sealed under the first key of WEBHOOK_SECRET_KEYS, never as issued', async () => {
    const { key } = await createAccountWithKey();
    const endpoint = await registerEndpoint(key, 'https://hooks.example.com/sealed');
    const row = (await endpointRow(endpoint.id))!;
    expect(row.secret_key_id).toBe('test1');
    expect(String(row.secret)).not.toContain(endpoint.secret.slice(6, 26));
    // Opens with the key, and only for its own endpoint (the id is the seal's additional data).
    const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
    expect(await openSecret(ring, endpoint.id, { keyId: 'test1', sealed: String(row.secret) })).toBe(endpoint.secret);
    await expect(openSecret(ring, 'we_00000000000000000000000000000000', { keyId: 'test1', sealed: String(row.secret) })).rejects.toThrow();
    // A database copy with another key cannot open it.
    const other = await keyRing(newKeyRingValue('test1'));
    await expect(openSecret(other, endpoint.id, { keyId: 'test1', sealed: String(row.secret) })).rejects.toThrow();
  });

  it('without WEBHOOK_SECRET_KEYS, create and rotate are a 500 naming it, and nothing is stored', async () => {
    const { account, key } = await createAccountWithKey();
    const endpoint = await registerEndpoint(key, 'https://hooks.example.com/kept');
    for (const [path, body] of [
      ['/webhook_endpoints', { url: 'https://hooks.example.com/new' }],
      [`/webhook_endpoints/${endpoint.id}/rotate_secret`, {}],
    ] as const) {
      const res = await worker.fetch(
        new Request(`http://scenario.test${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }) as never,
        { ...env, WEBHOOK_SECRET_KEYS: '' },
        { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext,
      );
      expect(res.status, path).toBe(500);
      expect(await res.text()).toContain('WEBHOOK_SECRET_KEYS');
    }
    expect(logs.filter((line) => line.includes('"server error"') && line.includes('WEBHOOK_SECRET_KEYS'))).toHaveLength(2);
    const rows = await everyDb.prepare('select id from webhook_endpoints where account_id = ?').bind(account.id).all();
    expect(rows.results).toEqual([{ id: endpoint.id }]);
    const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
    expect(await openSecret(ring, endpoint.id, { keyId: 'test1', sealed: String((await endpointRow(endpoint.id))!.secret) })).toBe(endpoint.secret);
  });

  it('endpoints stored before sealing (plaintext) keep their secret; the hourly cron seals it', async () => {
    const { account, key } = await createAccountWithKey();
    const name = receiverName();
    const secret = newWebhookSecret();
    const id = `we_${crypto.randomUUID().replaceAll('-', '')}`;
    await dbOf(account.id).prepare(
      "insert into webhook_endpoints (id, account_id, url, event_types, description, secret, created_at) values (?, ?, ?, '[\"scenario.created\"]', null, ?, ?)",
    )
      .bind(id, account.id, hookUrl(name), secret, Date.now() - 1000)
      .run();
    await createScenario(key);
    const first = await eventually(() => received(name), (list) => list.length >= 1);
    expect(verified(first[0]!, secret).type).toBe('scenario.created');

    await worker.scheduled(createScheduledController({ cron: '17 * * * *', scheduledTime: Date.now() }), env);
    const row = (await endpointRow(id))!;
    expect(row.secret_key_id).toBe('test1');
    expect(row.secret).not.toBe(secret);
    await createScenario(key);
    const both = await eventually(() => received(name), (list) => list.length >= 2);
    expect(verified(both[1]!, secret).type).toBe('scenario.created');
  });

  it('re-seals secrets of a key that is no longer first, so that key can be dropped', async () => {
    const { account } = await createAccountWithKey();
    const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
    const retiring = newKeyRingValue('retiring');
    // A row sealed under "retiring" (its key was first then), with a previous secret under it too.
    const old = await keyRing(`${retiring},${env.WEBHOOK_SECRET_KEYS}`);
    const id = `we_${crypto.randomUUID().replaceAll('-', '')}`;
    const [secret, previous] = [newWebhookSecret(), newWebhookSecret()];
    const sealed = await sealSecret(old, id, secret);
    const sealedPrevious = await sealSecret(old, id, previous);
    expect(sealed.keyId).toBe('retiring');
    await dbOf(account.id).prepare(
      `insert into webhook_endpoints (id, account_id, url, event_types, secret, secret_key_id, previous_secret, previous_secret_key_id, previous_secret_expires_at, created_at)
       values (?, ?, 'https://hooks.example.com/r', '["scenario.saved"]', ?, ?, ?, ?, ?, ?)`,
    )
      .bind(id, account.id, sealed.sealed, sealed.keyId, sealedPrevious.sealed, sealedPrevious.keyId, Date.now() + 3_600_000, Date.now())
      .run();
    // "test1" first again, "retiring" still listed: the cron's re-seal moves the row to test1.
    await resealSecrets(dbOf(account.id), `${env.WEBHOOK_SECRET_KEYS},${retiring}`, Date.now());
    const row = (await endpointRow(id))!;
    expect([row.secret_key_id, row.previous_secret_key_id]).toEqual(['test1', 'test1']);
    expect(await openSecret(ring, id, { keyId: 'test1', sealed: String(row.secret) })).toBe(secret);
    expect(await openSecret(ring, id, { keyId: 'test1', sealed: String(row.previous_secret) })).toBe(previous);
  });
});

describe('rotating a secret', { timeout: 30_000 }, () => {
  it('signs with both secrets until the old one expires (standardwebhooks verifies either), then with the new one only', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    const rotated = await api(key).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Math.abs(new Date(rotated.body.previous_secret_expires_at).getTime() - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    // Shown once: never in a list or a view.
    const views = (await api(key).get(`/webhook_endpoints/${endpoint.id}`)).text + (await api(key).get('/webhook_endpoints')).text;
    expect(views).not.toContain(rotated.body.secret.slice(6, 26));

    await createScenario(key);
    const [first] = await eventually(() => received(name), (list) => list.length >= 1);
    const signatures = first!.headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verified(first!, rotated.body.secret).type).toBe('scenario.created');
    expect(verified(first!, endpoint.secret).type).toBe('scenario.created');
    // The new signature comes first, as the header lists them.
    expect(new Webhook(rotated.body.secret).verify(first!.body, { ...first!.headers, 'webhook-signature': signatures[0]! })).toBeTruthy();

    // expires_in 0: the replaced secret stops at once.
    const again = await api(key).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 0 });
    expect(again.status).toBe(200);
    expect(again.body.previous_secret_expires_at).toBeNull();
    await createScenario(key);
    const list = await eventually(() => received(name), (l) => l.length >= 2);
    const second = list[1]!;
    expect(second.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verified(second, again.body.secret).type).toBe('scenario.created');
    expect(() => verified(second, rotated.body.secret)).toThrow();
    expect(() => verified(second, endpoint.secret)).toThrow();
  });

  it('keeps the old secret 24 hours by default; an expired one no longer signs', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    // No body at all is the default too.
    const res = await api(key).send('POST', `/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(res.status).toBe(200);
    expect(Math.abs(new Date(res.body.previous_secret_expires_at).getTime() - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    await everyDb.prepare('update webhook_endpoints set previous_secret_expires_at = ? where id = ?').bind(Date.now() - 1, endpoint.id).run();
    await createScenario(key);
    const [delivery] = await eventually(() => received(name), (list) => list.length >= 1);
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => verified(delivery!, endpoint.secret)).toThrow();
    expect(verified(delivery!, res.body.secret).type).toBe('scenario.created');
  });

  it('refuses a bad expires_in (422), a read key (403), another account (404)', async () => {
    const { account, key } = await createAccountWithKey();
    const other = await createAccountWithKey();
    const endpoint = await registerEndpoint(key, 'https://hooks.example.com/rot');
    for (const expires_in of [-1, 1.5, 7 * 86400 + 1, '60']) {
      const res = await api(key).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in });
      expect(res.status, String(expires_in)).toBe(422);
    }
    expect((await api(key).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 60, secret: 'mine' })).status).toBe(422);
    const readKey = (await createKey(account.id, { scope: 'read' })).key;
    expect((await api(readKey).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, {})).status).toBe(403);
    expect((await api(other.key).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, {})).status).toBe(404);
    expect((await api(key).post('/webhook_endpoints/we_00000000000000000000000000000000/rotate_secret', {})).status).toBe(404);
    const row = (await endpointRow(endpoint.id))!;
    expect(row.previous_secret).toBeNull();
  });
});

describe('failing endpoints', { timeout: 30_000 }, () => {
  it('an answered attempt ends a failing streak', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name, 'fail=1'));
    await createScenario(key);
    await eventually(() => received(name), (list) => list.length >= 2);
    const row = await eventually(() => endpointRow(endpoint.id), (r) => r?.failing_since === null);
    expect(row).toMatchObject({ status: 'enabled', failing_since: null });
  });

  it('is disabled once every attempt has failed for 3 days, gets nothing more, and is enabled again by POST …/enable', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name, 'fail=1'));
    // Failing for almost 3 days: the next failure is past the limit.
    await everyDb.prepare('update webhook_endpoints set failing_since = ? where id = ?').bind(Date.now() - DISABLE_AFTER_FAILING_MS + 500, endpoint.id).run();
    await sleep(600);
    await createScenario(key);
    await eventually(() => received(name), (list) => list.length >= 1);
    const disabled = await eventually(() => api(key).get(`/webhook_endpoints/${endpoint.id}`), (res) => res.body.status === 'disabled');
    expect(disabled.body.status).toBe('disabled');
    // No retry, and no new event, reaches a disabled endpoint.
    await createScenario(key);
    await sleep(2500);
    expect(await received(name)).toHaveLength(1);

    const enabled = await api(key).post(`/webhook_endpoints/${endpoint.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ ...disabled.body, status: 'enabled' });
    expect((await endpointRow(endpoint.id))!.failing_since).toBeNull();
    await createScenario(key);
    const got = await eventually(() => received(name), (list) => list.length >= 2);
    expect(verified(got[1]!, endpoint.secret).type).toBe('scenario.created');
  });

  it('enable needs a read_write key, and is 404 for another account', async () => {
    const { account, key } = await createAccountWithKey();
    const other = await createAccountWithKey();
    const endpoint = await registerEndpoint(key, 'https://hooks.example.com/en');
    const readKey = (await createKey(account.id, { scope: 'read' })).key;
    expect((await api(readKey).post(`/webhook_endpoints/${endpoint.id}/enable`)).status).toBe(403);
    expect((await api(other.key).post(`/webhook_endpoints/${endpoint.id}/enable`)).status).toBe(404);
    const res = await api(key).post(`/webhook_endpoints/${endpoint.id}/enable`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('enabled');
  });
});

describe("the consumer delivers only to endpoints of the event's account", { timeout: 30_000 }, () => {
  it('a message pairing one account’s event with another’s endpoint delivers nothing and records nothing', async () => {
    const a = await createAccountWithKey();
    const b = await createAccountWithKey();
    const name = receiverName();
    const foreign = await registerEndpoint(b.key, hookUrl(name));
    await createScenario(a.key);
    const event = (await everyDb.prepare('select id from events where account_id = ?').bind(a.account.id).first<{ id: string }>())!;
    await env.WEBHOOK_QUEUE.send({ kind: 'delivery', eventId: event.id, endpointId: foreign.id });
    // Its own account's delivery, sent after, arrives: the queue has moved past the foreign one.
    await createScenario(b.key);
    const got = await eventually(() => received(name), (list) => list.length >= 1);
    await sleep(1500);
    expect((await received(name)).map((d) => JSON.parse(d.body).id)).not.toContain(event.id);
    expect(got.every((d) => JSON.parse(d.body).id !== event.id)).toBe(true);
    const attempts = { n: await everyDb.count('select count(*) as n from webhook_deliveries where endpoint_id = ? and event_id = ?', foreign.id, event.id) };
    expect(attempts!.n).toBe(0);
  });
});
