// Every dashboard change applies to the API at once: a key created there works on the API's next
// request, a revoked one is refused on the next, a rolled one's old key is refused after its
// grace; an endpoint added there receives the next event, signed; "resend" delivers again. Every
// change leaves an audit row. The dashboard and the API share the test Worker's real local D1.
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import dashboard from '../dashboard/src/index.ts';
import { admin, api, createAccount, createAccountWithKey, createScenario, dbOf } from './helpers/api.ts';
import { browser, countingDb, shownKey, signIn } from './helpers/dashboard.ts';
import { eventually, hookUrl, received, receiverName, verified } from './helpers/webhooks.ts';
import { everyDb } from './helpers/databases.ts';

async function signedInAccount() {
  const account = await createAccount();
  return { account, user: await signIn(account.email, { userAgent: 'Mozilla/5.0 (dashboard test)' }) };
}

describe('keys made in the dashboard', () => {
  it('works on the API from the next request, with the name, scope and last four shown', async () => {
    const { user } = await signedInAccount();
    const page = await user.post('/dashboard/keys', { name: 'ci', scope: 'read', expires: '' });
    expect(page.status).toBe(200);
    const key = shownKey(page.text);
    expect(page.text).toContain(`${key.slice(0, 10)}…${key.slice(-4)}`);
    expect(page.text).toContain('shown only this once');
    const me = await api(key).get('/me');
    expect(me.status).toBe(200);
    // Read only: a write is refused.
    expect((await api(key).post('/scenarios', { scenarioData: {} })).status).toBe(403);
    // The page afterwards lists it without the full key.
    const listed = await user.get('/dashboard/keys');
    expect(listed.text).not.toContain(key);
    expect(listed.text).toContain('Last used');
  });

  it('keeps what was typed on a bad submission, with the errors', async () => {
    const { user } = await signedInAccount();
    const page = await user.post('/dashboard/keys', { name: 'x'.repeat(101), scope: 'read', expires: '2001-01-01' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('There are 2 problems');
    expect(page.text).toContain(`value="${'x'.repeat(101)}"`);
    expect(page.text).toContain('value="2001-01-01"');
    expect(page.text).toMatch(/id="scope-read" name="scope" value="read" checked/);
  });

  it('is refused on the next request once revoked', async () => {
    const { user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'to revoke', scope: 'read_write' })).text);
    expect((await api(key).get('/me')).status).toBe(200);
    const row = await everyDb.prepare('select id from api_keys where prefix = ? and last_four = ?').bind(key.slice(0, 10), key.slice(-4)).first<{ id: number }>();
    const revoked = await user.post(`/dashboard/keys/${row!.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.text).toContain('is revoked');
    expect((await api(key).get('/me')).status).toBe(401);
  });

  it('rolls: a new key at once; the old one refused after its grace (now, or an hour)', async () => {
    const { user } = await signedInAccount();
    const old = shownKey((await user.post('/dashboard/keys', { name: 'rolling', scope: 'read' })).text);
    const oldId = (await everyDb.prepare('select id from api_keys where prefix = ?').bind(old.slice(0, 10)).first<{ id: number }>())!.id;
    const hour = await user.post(`/dashboard/keys/${oldId}/roll`, { grace: '3600' });
    expect(hour.status).toBe(200);
    const next = shownKey(hour.text);
    expect(next).not.toBe(old);
    expect((await api(next).get('/me')).status).toBe(200);
    expect((await api(old).get('/me')).status).toBe(200);
    const rows = await everyDb.prepare('select key_hash, name, scope, expires_at from api_keys where prefix in (?, ?) order by id').bind(old.slice(0, 10), next.slice(0, 10)).all<{ name: string; scope: string; expires_at: number | null }>();
    expect(rows.results.map((r) => [r.name, r.scope])).toEqual([
      ['rolling', 'read'],
      ['rolling', 'read'],
    ]);
    expect(rows.results[0]!.expires_at! - Date.now()).toBeGreaterThan(3590_000);
    expect(rows.results[1]!.expires_at).toBeNull();
    // Rolled again with no grace: the first key stops at once.
    const now = await user.post(`/dashboard/keys/${oldId}/roll`, { grace: '0' });
    expect(now.status).toBe(200);
    expect((await api(old).get('/me')).status).toBe(401);
    // An expired key cannot be rolled.
    expect((await user.post(`/dashboard/keys/${oldId}/roll`, { grace: '0' })).status).toBe(409);
  });

  it('cannot touch another account’s key', async () => {
    const { keyId, key } = await createAccountWithKey();
    const { user } = await signedInAccount();
    expect((await user.post(`/dashboard/keys/${keyId}/revoke`)).status).toBe(404);
    expect((await user.post(`/dashboard/keys/${keyId}/roll`, { grace: '0' })).status).toBe(409);
    expect((await api(key).get('/me')).status).toBe(200);
  });
});

describe('the admin API and CLI roll', () => {
  it('POST /admin/keys/{id}/roll → 201 with the new key; the old one works for expires_in seconds', async () => {
    const { keyId, key } = await createAccountWithKey();
    const rolled = await admin().post(`/admin/keys/${keyId}/roll`, { expires_in: 3600 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.key).toMatch(/^scn_/);
    expect((await api(rolled.body.key).get('/me')).status).toBe(200);
    expect((await api(key).get('/me')).status).toBe(200);
    const again = await admin().post(`/admin/keys/${keyId}/roll`, { expires_in: 0 });
    expect(again.status).toBe(201);
    expect((await api(key).get('/me')).status).toBe(401);
    expect((await admin().post(`/admin/keys/${keyId}/roll`, {})).status).toBe(404);
    expect((await admin().post(`/admin/keys/${keyId}/roll`, { expires_in: -1 })).status).toBe(422);
  });
});

describe('webhook endpoints made in the dashboard', { timeout: 30_000 }, () => {
  it('receive the next event, signed; resend delivers it again; delete stops them', async () => {
    const { user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'hooks', scope: 'read_write' })).text);
    const name = receiverName();
    const added = await user.post('/dashboard/webhooks', [
      ['url', hookUrl(name)],
      ['event_types', 'scenario.created'],
      ['description', 'from the dashboard'],
    ]);
    expect(added.status).toBe(200);
    const secret = /<code id="new-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(added.text)?.[1];
    expect(secret).toBeDefined();
    const endpointId = /webhooks\/(we_[0-9a-f]{32})/.exec(added.text)![1]!;
    // The API sees it, with the same rules (no secret listed).
    const listed = await api(key).get('/webhook_endpoints');
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([endpointId]);

    const { token } = await createScenario(key);
    const first = await eventually(() => received(name), (list) => list.length >= 1);
    const event = verified(first[0]!, secret!);
    expect(event).toMatchObject({ type: 'scenario.created', data: { token, version: 1 } });

    // The delivery log shows it, with a resend button.
    const log = await eventually(() => user.get(`/dashboard/webhooks/${endpointId}`), (page) => page.text.includes('HTTP 204'));
    expect(log.text).toContain(event.id);
    const resent = await user.post(`/dashboard/webhooks/${endpointId}/resend`, { event_id: event.id });
    expect(resent.status).toBe(200);
    expect(resent.text).toContain('is queued for delivery again');
    const both = await eventually(() => received(name), (list) => list.length >= 2);
    expect(both).toHaveLength(2);
    expect(verified(both[1]!, secret!).id).toBe(event.id);

    // Another account's event cannot be resent to it.
    const stranger = await createAccountWithKey();
    await createScenario(stranger.key);
    const foreignEvent = (await api(stranger.key).get('/events')).body.data[0].id;
    expect((await user.post(`/dashboard/webhooks/${endpointId}/resend`, { event_id: foreignEvent })).status).toBe(404);

    const deleted = await user.post(`/dashboard/webhooks/${endpointId}/delete`);
    expect(deleted.text).toContain('Deleted the endpoint');
    expect((await api(key).get('/webhook_endpoints')).body.data).toEqual([]);
  });

  it('rotate the secret (the new one shown once, the old one signing beside it for the overlap chosen), disable and enable', async () => {
    const { account, user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'rotation', scope: 'read_write' })).text);
    const name = receiverName();
    const added = await user.post('/dashboard/webhooks', [
      ['url', hookUrl(name)],
      ['event_types', 'scenario.created'],
    ]);
    const secretOn = (html: string) => /<code id="new-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(html)?.[1];
    const oldSecret = secretOn(added.text)!;
    const endpointId = /webhooks\/(we_[0-9a-f]{32})/.exec(added.text)![1]!;

    const rotated = await user.post(`/dashboard/webhooks/${endpointId}/rotate`, { overlap: '3600' });
    expect(rotated.status).toBe(200);
    const newSecret = secretOn(rotated.text)!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    // The next delivery verifies with either secret (two signatures) while the overlap lasts.
    await createScenario(key);
    const [delivery] = await eventually(() => received(name), (list) => list.length >= 1);
    expect(verified(delivery!, newSecret).type).toBe('scenario.created');
    expect(verified(delivery!, oldSecret).type).toBe('scenario.created');
    // An overlap that is not one of the choices changes nothing.
    expect((await user.post(`/dashboard/webhooks/${endpointId}/rotate`, { overlap: '5' })).status).toBe(400);

    const disabled = await user.post(`/dashboard/webhooks/${endpointId}/disable`);
    expect(disabled.text).toContain('Disabled: nothing is delivered');
    expect((await api(key).get(`/webhook_endpoints/${endpointId}`)).body.status).toBe('disabled');
    const enabled = await user.post(`/dashboard/webhooks/${endpointId}/enable`);
    expect(enabled.text).toContain('Enabled: events from now on');
    expect((await api(key).get(`/webhook_endpoints/${endpointId}`)).body.status).toBe('enabled');

    const { results } = await everyDb.prepare('select action, target from dashboard_audit where account_id = ? order by seq').bind(account.id).all();
    expect(results.map((r) => r.action)).toEqual([
      'signed_in',
      'key.created',
      'webhook_endpoint.created',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
    ]);
  });

  it('follow the API’s URL rules, keeping what was typed', async () => {
    const { user } = await signedInAccount();
    const page = await user.post('/dashboard/webhooks', [
      ['url', 'http://10.0.0.1/hook'],
      ['description', 'private'],
    ]);
    expect(page.status).toBe(400);
    expect(page.text).toContain('value="http://10.0.0.1/hook"');
    expect(page.text).toContain('value="private"');
    expect(page.text).toContain('Choose at least one kind of event');
  });

  it('count against the same 10-per-account limit', async () => {
    const { user } = await signedInAccount();
    for (let i = 0; i < 10; i++) expect((await user.post('/dashboard/webhooks', [['url', hookUrl(`limit${i}`)], ['event_types', 'scenario.saved']])).status).toBe(200);
    const eleventh = await user.post('/dashboard/webhooks', [['url', hookUrl('limit10')], ['event_types', 'scenario.saved']]);
    expect(eleventh.status).toBe(409);
    expect(eleventh.text).toContain('the most it can have');
  });
});

describe('the audit log, events and account pages', () => {
  it('records every sign-in and change: who, what, when, client address, user agent', async () => {
    const { account, user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'audited', scope: 'read_write' })).text);
    const id = (await everyDb.prepare('select id from api_keys where prefix = ?').bind(key.slice(0, 10)).first<{ id: number }>())!.id;
    await user.post(`/dashboard/keys/${id}/revoke`);
    // Revoking again changes nothing and records nothing.
    await user.post(`/dashboard/keys/${id}/revoke`);
    const { results } = await everyDb.prepare('select * from dashboard_audit where account_id = ? order by seq').bind(account.id).all<Record<string, unknown>>();
    expect(results.map((r) => r.action)).toEqual(['signed_in', 'key.created', 'key.revoked']);
    for (const row of results) {
      expect(row.actor).toBe(account.email);
      expect(row.address).toMatch(/^198\.18\./);
      expect(row.user_agent).toBe('Mozilla/5.0 (dashboard test)');
    }
    const page = await user.get('/dashboard/audit');
    expect(page.text).toContain('Revoked an API key');
    expect(page.text).toContain('Mozilla/5.0 (dashboard test)');
  });

  it('lists the account’s events, by type, and the scenarios stored against the quota', async () => {
    const { user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'events', scope: 'read_write' })).text);
    const { token } = await createScenario(key);
    await api(key).delete(`/scenarios/${token}`);
    const all = await user.get('/dashboard/events');
    expect(all.text).toContain('scenario.created');
    expect(all.text).toContain('scenario.deleted');
    const created = await user.get('/dashboard/events?type=scenario.created');
    expect(created.text).toContain(token);
    expect(created.text).not.toContain('<td>scenario.deleted</td>');
    await createScenario(key);
    const account = await user.get('/dashboard/account');
    expect(account.text).toContain('1 of 20,000 scenarios stored');
    const smaller = await signIn((await createAccount()).email, { vars: { ACCOUNT_MAX_SCENARIOS: '50' } });
    expect((await smaller.get('/dashboard/account')).text).toContain('0 of 50 scenarios stored');
  });

  it('prunes audit rows past a year, used-up links and ended sessions in its daily cron', async () => {
    const { account } = await signedInAccount();
    const old = Date.now() - 366 * 24 * 3600 * 1000;
    // In the account's own database, where the cron must find them (it prunes every database).
    await dbOf(account.id).prepare("insert into dashboard_audit (id, account_id, actor, action, created_at) values (?, ?, 'x', 'signed_in', ?)").bind(crypto.randomUUID(), account.id, old).run();
    await dbOf(account.id).prepare("insert into dashboard_sessions (id_hash, account_id, created_at, idle_expires_at, expires_at) values (?, ?, ?, ?, ?)").bind(`old-${crypto.randomUUID()}`, account.id, old, old, old).run();
    await dashboard.scheduled(createScheduledController({ cron: '41 3 * * *' }), env);
    expect(await everyDb.count('select count(*) as n from dashboard_audit where created_at < ?', old + 1)).toBe(0);
    expect(await everyDb.count('select count(*) as n from dashboard_sessions where expires_at < ?', Date.now())).toBe(0);
  });
});

describe('round trips', () => {
  it('every page and every change is one D1 round trip, the session check included', async () => {
    const { account, user } = await signedInAccount();
    const key = shownKey((await user.post('/dashboard/keys', { name: 'trips', scope: 'read_write' })).text);
    await createScenario(key);
    const added = await user.post('/dashboard/webhooks', [
      ['url', hookUrl(receiverName())],
      ['event_types', 'scenario.created'],
    ]);
    const endpointId = /webhooks\/(we_[0-9a-f]{32})/.exec(added.text)![1]!;
    const keyId = String((await everyDb.prepare('select id from api_keys where account_id = ? order by id desc').bind(account.id).first())!.id);
    const eventId = String((await everyDb.prepare('select id from events where account_id = ?').bind(account.id).first())!.id);
    const counter = countingDb();
    const counted = browser(user.cookie, { bindings: counter.bindings, userAgent: 'Mozilla/5.0 (dashboard test)' });
    const trips = async (send: () => Promise<{ status: number }>) => {
      counter.reset();
      const { status } = await send();
      return { status, calls: counter.take() };
    };
    for (const path of [
      '/dashboard/keys',
      '/dashboard/webhooks',
      `/dashboard/webhooks/${endpointId}`,
      `/dashboard/webhooks/${endpointId}/delete`,
      `/dashboard/keys/${keyId}/revoke`,
      '/dashboard/events?type=scenario.created',
      '/dashboard/account',
      '/dashboard/audit',
    ]) {
      expect(await trips(() => counted.get(path)), path).toEqual({ status: 200, calls: 1 });
    }
    const changes: Array<[string, Record<string, string>, number]> = [
      ['/dashboard/keys', { name: 'another', scope: 'read' }, 303],
      [`/dashboard/keys/${keyId}/roll`, { grace: '3600' }, 303],
      [`/dashboard/webhooks/${endpointId}/rotate`, { overlap: '0' }, 303],
      [`/dashboard/webhooks/${endpointId}/disable`, {}, 303],
      [`/dashboard/webhooks/${endpointId}/enable`, {}, 303],
      [`/dashboard/webhooks/${endpointId}/resend`, { event_id: eventId }, 303],
      [`/dashboard/keys/${keyId}/revoke`, {}, 303],
      [`/dashboard/webhooks/${endpointId}/delete`, {}, 303],
    ];
    for (const [path, form, status] of changes) expect(await trips(() => counted.post(path, form, { follow: false })), path).toEqual({ status, calls: 1 });
  });
});
