// The Developers section's sign-in and sessions, through the dashboard Worker's fetch against the
// real local D1: links single use, 15 minutes, stored as hashes; no account enumeration; sign-in
// limits; cross-site refusals; the session cookie; idle and absolute expiry; sign out (everywhere).
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/auth/api-key.ts';
import { dashboardApp } from '../dashboard/src/app.ts';
import { api, createAccount, dbOf, uniqueEmail } from './helpers/api.ts';
import { browser, dashboardFetch, mailbox, requestLink, sessionCookieOf, signIn, uniqueAddress } from './helpers/dashboard.ts';
import { everyDb } from './helpers/databases.ts';

const OPEN = { DASHBOARD_SIGNUP: 'open' };

async function confirm(token: string) {
  return dashboardFetch('POST', '/dashboard/sign-in/confirm', { form: { token }, address: uniqueAddress() });
}

describe('sign-in links', () => {
  it('signs in once: the same link a second time is refused', async () => {
    const { email } = await createAccount();
    const { token } = await requestLink(email);
    expect(token).toBeDefined();
    const first = await confirm(token!);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/dashboard/keys');
    expect(sessionCookieOf(first)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const second = await confirm(token!);
    expect(second.status).toBe(400);
    expect(second.text).toContain('expired or was already used');
    expect(second.headers.get('set-cookie')).toBeNull();
  });

  it('expires 15 minutes after it was sent', async () => {
    const { email } = await createAccount();
    const { token } = await requestLink(email);
    const row = await everyDb.prepare('select created_at, expires_at from dashboard_sign_in_links where token_hash = ?').bind(await sha256Hex(token!)).first<{ created_at: number; expires_at: number }>();
    expect(row!.expires_at - row!.created_at).toBe(15 * 60 * 1000);
    await everyDb.prepare('update dashboard_sign_in_links set expires_at = ? where token_hash = ?').bind(Date.now() - 1, await sha256Hex(token!)).run();
    expect((await confirm(token!)).status).toBe(400);
  });

  it('stores the link and the session only as SHA-256 hashes', async () => {
    const { email } = await createAccount();
    const { token } = await requestLink(email);
    const confirmed = await confirm(token!);
    const sessionId = sessionCookieOf(confirmed)!;
    const link = await everyDb.prepare('select * from dashboard_sign_in_links where token_hash = ?').bind(await sha256Hex(token!)).first<Record<string, unknown>>();
    expect(link).not.toBeNull();
    const session = await everyDb.prepare('select * from dashboard_sessions where id_hash = ?').bind(await sha256Hex(sessionId)).first<Record<string, unknown>>();
    expect(session).not.toBeNull();
    expect(link!.session_hash).toBe(session!.id_hash);
    // Neither secret appears in any column of any row of either table.
    for (const table of ['dashboard_sign_in_links', 'dashboard_sessions', 'dashboard_audit']) {
      const { results } = await everyDb.prepare(`select * from ${table}`).all<Record<string, unknown>>();
      const dump = JSON.stringify(results);
      expect(dump).not.toContain(token!);
      expect(dump).not.toContain(sessionId);
    }
  });

  it('answers the same whether or not the address has an account (invite), and mails only an account', async () => {
    const { email } = await createAccount();
    const stranger = uniqueEmail();
    const known = await requestLink(email);
    const unknown = await requestLink(stranger);
    expect(known.reply.status).toBe(200);
    expect(unknown.reply.status).toBe(200);
    expect(known.reply.text.replaceAll(email, 'X')).toBe(unknown.reply.text.replaceAll(stranger, 'X'));
    expect(known.token).toBeDefined();
    expect(unknown.mail.sent).toHaveLength(0);
    // No link row for the stranger, and no account.
    expect(await everyDb.count('select count(*) as n from dashboard_sign_in_links where lower(email) = lower(?)', stranger)).toBe(0);
  });

  it('DASHBOARD_SIGNUP=open creates the account at the first sign-in of a new address', async () => {
    const email = uniqueEmail();
    const user = await signIn(email, { vars: OPEN });
    const page = await user.get('/dashboard/account');
    expect(page.status).toBe(200);
    expect(page.text).toContain(email);
    const account = await everyDb.prepare('select name, email from accounts where email = ?').bind(email).first<{ name: string }>();
    expect(account!.name).toBe(email.split('@')[0]);
    // Invite (the default): the same new address gets nothing.
    const other = uniqueEmail();
    expect((await requestLink(other)).token).toBeUndefined();
  });

  it('limits sign-in requests per e-mail address, the same for an account and a stranger', async () => {
    const { email } = await createAccount();
    const stranger = uniqueEmail();
    for (const address of [email, stranger]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await requestLink(address)).reply.status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    }
  });

  it('limits sign-in requests per client address (an IPv6 /64 counts as one)', async () => {
    const mail = mailbox();
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const reply = await dashboardFetch('POST', '/dashboard/sign-in', { mail, form: { email: uniqueEmail() }, address: `${prefix}::${i + 1}` });
      statuses.push(reply.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
  });

  it('keeps what was typed on a bad address, with the error', async () => {
    const reply = await dashboardFetch('POST', '/dashboard/sign-in', { form: { email: 'not-an-address' }, address: uniqueAddress() });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('value="not-an-address"');
    expect(reply.text).toContain('aria-invalid="true"');
    expect(reply.text).toContain('Enter an e-mail address like name@example.com');
  });

  it('opens the link on a page whose button signs in (a mail scanner fetching it uses nothing up)', async () => {
    const { email } = await createAccount();
    const { token } = await requestLink(email);
    const page = await dashboardFetch('GET', `/dashboard/sign-in/confirm?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('strict-origin');
    expect((await confirm(token!)).status).toBe(303);
  });
});

describe('sessions', () => {
  it('sets __Host-session: Secure, HttpOnly, SameSite=Lax, Path=/, no Domain', async () => {
    const { email } = await createAccount();
    const { token } = await requestLink(email);
    const cookie = (await confirm(token!)).headers.get('set-cookie')!;
    const attributes = cookie.split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(cookie).not.toMatch(/domain=/i);
  });

  it('ends after 7 idle days, and 30 days after sign-in however used; use moves the idle expiry', async () => {
    const { email } = await createAccount();
    const user = await signIn(email);
    const idHash = await sha256Hex(user.cookie);
    const row = () => everyDb.prepare('select * from dashboard_sessions where id_hash = ?').bind(idHash).first<{ created_at: number; idle_expires_at: number; expires_at: number }>();
    const fresh = (await row())!;
    expect(fresh.idle_expires_at - fresh.created_at).toBe(7 * 24 * 3600 * 1000);
    expect(fresh.expires_at - fresh.created_at).toBe(30 * 24 * 3600 * 1000);
    // Used after 2 idle days: the idle expiry moves to 7 days from now.
    await everyDb.prepare('update dashboard_sessions set idle_expires_at = ? where id_hash = ?').bind(Date.now() + 5 * 24 * 3600 * 1000, idHash).run();
    expect((await user.get('/dashboard/keys')).status).toBe(200);
    expect((await row())!.idle_expires_at).toBeGreaterThan(Date.now() + 7 * 24 * 3600 * 1000 - 60_000);
    // Idle past its expiry: signed out.
    await everyDb.prepare('update dashboard_sessions set idle_expires_at = ? where id_hash = ?').bind(Date.now() - 1, idHash).run();
    const idle = await user.get('/dashboard/keys');
    expect(idle.status).toBe(303);
    expect(idle.headers.get('location')).toBe('/dashboard/sign-in');
    // Past its absolute expiry, however recently used: signed out, and use does not revive it.
    await everyDb.prepare('update dashboard_sessions set idle_expires_at = ?, expires_at = ? where id_hash = ?').bind(Date.now() + 3600_000, Date.now() - 1, idHash).run();
    expect((await user.get('/dashboard/keys')).status).toBe(303);
    expect((await row())!.expires_at).toBeLessThan(Date.now());
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const { email } = await createAccount();
    const user = await signIn(email);
    const out = await user.post('/dashboard/sign-out', {}, { follow: false });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-session=; Max-Age=0/);
    expect((await user.get('/dashboard/keys')).status).toBe(303);
    expect(await everyDb.prepare('select 1 from dashboard_sessions where id_hash = ?').bind(await sha256Hex(user.cookie)).first()).toBeNull();
  });

  it('signs out everywhere: every session of the account ends, another account’s stays', async () => {
    const { email } = await createAccount();
    const laptop = await signIn(email);
    const phone = await signIn(email);
    const other = await signIn((await createAccount()).email);
    expect((await phone.get('/dashboard/account')).text).toContain('2 sessions');
    expect((await laptop.post('/dashboard/sign-out-everywhere', {}, { follow: false })).status).toBe(303);
    expect((await laptop.get('/dashboard/keys')).status).toBe(303);
    expect((await phone.get('/dashboard/keys')).status).toBe(303);
    expect((await other.get('/dashboard/keys')).status).toBe(200);
  });

  it('sends a page without a session to sign-in', async () => {
    for (const path of ['/dashboard/keys', '/dashboard/webhooks', '/dashboard/events', '/dashboard/account', '/dashboard/audit']) {
      const reply = await dashboardFetch('GET', path);
      expect(reply.status, path).toBe(303);
      expect(reply.headers.get('location')).toBe('/dashboard/sign-in');
    }
    const unknown = await browser('A'.repeat(43)).get('/dashboard/keys');
    expect(unknown.status).toBe(303);
  });
});

describe('cross-site requests', () => {
  it('refuses a change from a foreign Origin with 403, and changes nothing', async () => {
    const { id, email } = await createAccount();
    const user = await signIn(email);
    for (const origin of ['https://evil.example', 'null', 'http://scenario.test:8080']) {
      const reply = await user.post('/dashboard/keys', { name: 'x', scope: 'read_write' }, { origin });
      expect(reply.status, origin).toBe(403);
    }
    expect(await everyDb.count('select count(*) as n from api_keys where account_id = ?', id)).toBe(0);
    // Sign-in requests and sign-outs too.
    expect((await dashboardFetch('POST', '/dashboard/sign-in', { form: { email }, origin: 'https://evil.example' })).status).toBe(403);
    expect((await user.post('/dashboard/sign-out-everywhere', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await user.get('/dashboard/keys')).status).toBe(200);
  });

  it('refuses a change without the session’s form token (or with another session’s) with 403', async () => {
    const { id, email } = await createAccount();
    const user = await signIn(email);
    expect((await user.post('/dashboard/keys', { name: 'x' }, { withToken: false })).status).toBe(403);
    const other = await signIn((await createAccount()).email);
    const otherPage = await other.get('/dashboard/keys');
    const otherToken = /name="_token" value="([0-9a-f]{64})"/.exec(otherPage.text)![1]!;
    expect((await user.post('/dashboard/keys', { name: 'x', _token: otherToken }, { withToken: false })).status).toBe(403);
    expect(await everyDb.count('select count(*) as n from api_keys where account_id = ?', id)).toBe(0);
  });

  it('refuses every POST route of the dashboard from a foreign Origin, and every signed-in one without the form token: 403, nothing changed', async () => {
    const { id, email } = await createAccount();
    const user = await signIn(email);
    const key = /<code id="new-key">(scn_[0-9A-Za-z]{36})<\/code>/.exec((await user.post('/dashboard/keys', { name: 'kept', scope: 'read_write' })).text)![1]!;
    const added = await user.post('/dashboard/webhooks', [
      ['url', 'http://127.0.0.1:9/hook'],
      ['event_types', 'scenario.created'],
    ]);
    const endpointId = /webhooks\/(we_[0-9a-f]{32})/.exec(added.text)![1]!;
    // The account's own database holds its rows (docs/decisions.md, "Capacity past one database").
    const keyId = String((await dbOf(id).prepare('select id from api_keys where account_id = ?').bind(id).first<{ id: number }>())!.id);
    const snapshot = async () =>
      JSON.stringify([
        (await dbOf(id).prepare('select id, key_hash, expires_at, revoked_at from api_keys where account_id = ? order by id').bind(id).all()).results,
        (await dbOf(id).prepare('select id, secret, status from webhook_endpoints where account_id = ?').bind(id).all()).results,
        (await dbOf(id).prepare('select action from dashboard_audit where account_id = ? order by seq').bind(id).all()).results,
        (await dbOf(id).prepare('select count(*) as n from dashboard_sessions where account_id = ?').bind(id).first()),
      ]);
    const before = await snapshot();
    const posts = dashboardApp.routes.filter((route) => route.method === 'POST').map((route) => route.path);
    expect(posts.length).toBeGreaterThanOrEqual(12);
    const form = { name: 'x', scope: 'read', grace: '0', overlap: '0', event_id: `evt_${'0'.repeat(32)}`, url: 'http://127.0.0.1:9/x', event_types: 'scenario.saved', email };
    for (const pattern of posts) {
      const path = pattern.replace(':id', pattern.includes('/keys/') ? keyId : endpointId).replace(':change{disable|enable}', 'disable');
      expect((await user.post(path, form, { origin: 'https://evil.example' })).status, `${path} from another site`).toBe(403);
      const signedInOnly = !path.startsWith('/dashboard/sign-in') && !path.startsWith('/dashboard/invitations/');
      if (signedInOnly) expect((await user.post(path, form, { withToken: false })).status, `${path} without the form token`).toBe(403);
    }
    expect(await snapshot()).toBe(before);
    expect((await api(key).get('/me')).status).toBe(200);
  });

  it('sends hardening headers: a CSP with nothing but its own files, no framing, no-store', async () => {
    const page = await dashboardFetch('GET', '/dashboard/sign-in');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the API Worker hands /dashboard to the dashboard Worker', () => {
  it('through its DASHBOARD service binding, with the real send_email binding', async () => {
    const page = await exports.default.fetch(new Request('http://scenario.test/dashboard/sign-in'));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('E-mail me a sign-in link');
    const { email } = await createAccount();
    const sent = await exports.default.fetch(
      new Request('http://scenario.test/dashboard/sign-in', {
        method: 'POST',
        headers: { origin: 'http://scenario.test', 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': uniqueAddress() },
        body: new URLSearchParams({ email }).toString(),
      }),
    );
    expect(sent.status).toBe(200);
    await sent.text();
    // Only /dashboard and below: /dashboardx is the API's 404.
    const other = await exports.default.fetch(new Request('http://scenario.test/dashboardx'));
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toContain('problem+json');
    await other.text();
  });
});
