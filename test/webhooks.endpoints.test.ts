// Webhook endpoints (docs/decisions.md, "Events and webhooks"): the secret shown once, at most 10 per
// account, event_types, accounts kept apart, read_write keys only, and the URL rules (SSRF).
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '../src/webhooks/url-rules.ts';
import { api, createAccountWithKey, createKey } from './helpers/api.ts';
import { roundTripsOf } from './helpers/worker-on.ts';
import { hookUrl, receiverName, registerEndpoint } from './helpers/webhooks.ts';

const PUBLIC_URL = 'https://hooks.example.com/scenario-service';

describe('webhook endpoints', () => {
  it('create shows the secret once; list and view never do', async () => {
    const { key } = await createAccountWithKey();
    const res = await api(key).post('/webhook_endpoints', { url: PUBLIC_URL, description: 'calculator' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: PUBLIC_URL, description: 'calculator', event_types: ['scenario.created', 'scenario.saved', 'scenario.deleted'] });
    expect(res.body.id).toMatch(/^we_[0-9a-f]{32}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(res.body.secret.slice(6))).toHaveLength(32);
    const listed = await api(key).get('/webhook_endpoints');
    const viewed = await api(key).get(`/webhook_endpoints/${res.body.id}`);
    const { secret, ...withoutSecret } = res.body;
    expect(listed.body).toEqual({ data: [withoutSecret] });
    expect(viewed.body).toEqual(withoutSecret);
    expect(listed.text + viewed.text).not.toContain(secret.slice(6, 20));
    // Each endpoint its own secret.
    const other = await registerEndpoint(key, PUBLIC_URL);
    expect(other.secret).not.toBe(secret);
  });

  it('keeps only the event types asked for, in a stable order; refuses unknown or empty ones', async () => {
    const { key } = await createAccountWithKey();
    const some = await registerEndpoint(key, PUBLIC_URL, { event_types: ['scenario.deleted', 'scenario.created', 'scenario.deleted'] });
    expect(some.event_types).toEqual(['scenario.created', 'scenario.deleted']);
    for (const event_types of [['scenario.renamed'], [], 'scenario.saved']) {
      const res = await api(key).post('/webhook_endpoints', { url: PUBLIC_URL, event_types });
      expect(res.status, JSON.stringify(event_types)).toBe(422);
      expect(res.body.errors[0].path).toMatch(/^event_types/);
    }
  });

  it('allows at most 10 per account: the 11th is 409 too_many_endpoints, and a delete makes room', async () => {
    const { key } = await createAccountWithKey();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await registerEndpoint(key, PUBLIC_URL)).id);
    const eleventh = await api(key).post('/webhook_endpoints', { url: PUBLIC_URL });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.code).toBe('too_many_endpoints');
    expect((await api(key).get('/webhook_endpoints')).body.data).toHaveLength(10);
    // Another account is not affected.
    const other = await createAccountWithKey();
    expect((await api(other.key).post('/webhook_endpoints', { url: PUBLIC_URL })).status).toBe(201);
    expect((await api(key).delete(`/webhook_endpoints/${ids[0]}`)).status).toBe(204);
    expect((await api(key).post('/webhook_endpoints', { url: PUBLIC_URL })).status).toBe(201);
  });

  it('delete: 204, then 404; its deliveries go with it', async () => {
    const { key } = await createAccountWithKey();
    const { id } = await registerEndpoint(key, PUBLIC_URL);
    expect((await api(key).delete(`/webhook_endpoints/${id}`)).status).toBe(204);
    for (const res of [await api(key).get(`/webhook_endpoints/${id}`), await api(key).delete(`/webhook_endpoints/${id}`), await api(key).get(`/webhook_endpoints/${id}/deliveries`)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it("another account's endpoint is 404 like an unknown one, and is untouched", async () => {
    const a = await createAccountWithKey();
    const b = await createAccountWithKey();
    const { id } = await registerEndpoint(a.key, PUBLIC_URL);
    for (const res of [await api(b.key).get(`/webhook_endpoints/${id}`), await api(b.key).delete(`/webhook_endpoints/${id}`), await api(b.key).get(`/webhook_endpoints/${id}/deliveries`)]) {
      expect(res.status).toBe(404);
    }
    expect((await api(b.key).get('/webhook_endpoints')).body).toEqual({ data: [] });
    expect((await api(a.key).get(`/webhook_endpoints/${id}`)).status).toBe(200);
  });

  it('needs a read_write key on every route', async () => {
    const { account, key } = await createAccountWithKey();
    const { id } = await registerEndpoint(key, PUBLIC_URL);
    const readKey = (await createKey(account.id, { scope: 'read' })).key;
    const read = api(readKey);
    for (const res of [
      await read.post('/webhook_endpoints', { url: PUBLIC_URL }),
      await read.get('/webhook_endpoints'),
      await read.get(`/webhook_endpoints/${id}`),
      await read.get(`/webhook_endpoints/${id}/deliveries`),
      await read.delete(`/webhook_endpoints/${id}`),
    ]) {
      expect(res.status).toBe(403);
    }
    expect((await api(key).get('/webhook_endpoints')).body.data).toHaveLength(1);
    expect((await api().get('/webhook_endpoints')).status).toBe(401);
  });

  it('each route makes one D1 round trip', async () => {
    const { key } = await createAccountWithKey();
    const { id } = await registerEndpoint(key, PUBLIC_URL);
    const requests: Array<[string, string, unknown?]> = [
      ['POST', '/webhook_endpoints', { url: PUBLIC_URL }],
      ['GET', '/webhook_endpoints'],
      ['GET', `/webhook_endpoints/${id}`],
      ['GET', `/webhook_endpoints/${id}/deliveries?limit=5`],
      ['DELETE', `/webhook_endpoints/${id}`],
    ];
    for (const [method, path, body] of requests) {
      const { status, calls } = await roundTripsOf(key, method, path, body);
      expect(status, `${method} ${path}`).toBeLessThan(300);
      expect(calls, `${method} ${path}`).toBe(1);
    }
  });
});

// Hostile URLs: private, loopback, link-local, CGNAT, multicast, unspecified and reserved
// addresses in every notation the WHATWG URL parser accepts, IPv6 literals, local names,
// credentials and other schemes.
const HOSTILE = [
  'http://hooks.example.com/',
  'ftp://hooks.example.com/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'https://user:pass@hooks.example.com/',
  'https://user@hooks.example.com/',
  'https://localhost/',
  'https://LOCALHOST./',
  'https://api.localhost/',
  'https://127.0.0.1/',
  'https://127.1/',
  'https://2130706433/',
  'https://0x7f000001/',
  'https://0177.0.0.1/',
  'https://0x7f.1/',
  'https://017700000001/',
  'https://127.0.0.1.:443/',
  'https://0/',
  'https://0.0.0.0/',
  'https://10.0.0.1/',
  'https://10.255.255.255/',
  'https://167772161/',
  'https://172.16.0.1/',
  'https://172.31.255.254/',
  'https://192.168.1.1/',
  'https://0xc0.0xa8.1.1/',
  'https://100.64.0.1/',
  'https://100.127.255.254/',
  'https://169.254.169.254/latest/meta-data/',
  'https://0xa9fea9fe/',
  'https://224.0.0.1/',
  'https://239.255.255.250/',
  'https://255.255.255.255/',
  'https://198.18.0.1/',
  'https://192.0.2.10/',
  'https://[::1]/',
  'https://[0:0:0:0:0:0:0:1]/',
  'https://[::]/',
  'https://[::ffff:127.0.0.1]/',
  'https://[::ffff:7f00:1]/',
  'https://[::ffff:10.0.0.1]/',
  'https://[::127.0.0.1]/',
  'https://[fe80::1]/',
  'https://[fc00::1]/',
  'https://[fd12:3456:789a::1]/',
  'https://[ff02::1]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://[2001:db8::1]/',
  'https://[2002:7f00:1::]/',
  'https://intranet/',
  'https://printer.local/',
  'https://db.internal/',
  'not a url',
  `https://hooks.example.com/${'a'.repeat(2100)}`,
];

const ACCEPTED = ['https://hooks.example.com/scenario-service', 'https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://example.com:8443/x?y=1'];

describe('webhook URL rules', () => {
  it('refuses every hostile URL, in production', () => {
    for (const url of HOSTILE) expect(checkWebhookUrl(url, false).ok, url).toBe(false);
  });

  it('accepts https:// on public hosts, with or without WEBHOOK_ALLOW_LOOPBACK', () => {
    for (const url of ACCEPTED) {
      expect(checkWebhookUrl(url, false).ok, url).toBe(true);
      expect(checkWebhookUrl(url, true).ok, url).toBe(true);
    }
  });

  it('WEBHOOK_ALLOW_LOOPBACK allows loopback only (http too), and never credentials', () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:3000/', 'http://[::1]:9000/', 'http://2130706433/', 'https://127.0.0.1/']) {
      expect(checkWebhookUrl(url, true).ok, url).toBe(true);
    }
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[fe80::1]/', 'http://hooks.example.com/', 'http://user:pw@127.0.0.1/', 'https://[::ffff:10.0.0.1]/']) {
      expect(checkWebhookUrl(url, true).ok, url).toBe(false);
    }
  });

  it('stores the URL as the parser normalised it', () => {
    expect(checkWebhookUrl('https://HOOKS.Example.COM/a/../b', false)).toEqual({ ok: true, url: 'https://hooks.example.com/b' });
  });

  it('the API refuses them with 422 naming url (the tests run with loopback allowed, so loopback cases are left to the rules above)', async () => {
    const { key } = await createAccountWithKey();
    const nonLoopback = HOSTILE.filter((url) => !checkWebhookUrl(url, true).ok);
    expect(nonLoopback.length).toBeGreaterThan(40);
    for (const url of nonLoopback) {
      const res = await api(key).post('/webhook_endpoints', { url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0].path, url).toBe('url');
    }
    expect((await api(key).get('/webhook_endpoints')).body.data).toEqual([]);
    expect((await api(key).post('/webhook_endpoints', { url: hookUrl(receiverName()) })).status).toBe(201);
  });
});
