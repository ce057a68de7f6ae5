// D1's transient faults on the dashboard's writes (sign-in, key create, roll and revoke, endpoint
// create and rotation): each runs RUNS times on a D1 that fails a seeded quarter of its round trips
// before they run and a quarter after they commit (the reply lost), at most 3 per request so the
// retries get through. Every request gets the answer its change deserved (no 500 or 503, no "no
// such key" for its own change), and D1 holds exactly what was done: one key per create, one new
// key per roll, one endpoint per add, the secret shown being the one stored, one audit row each.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, createAccount, dbOf, uniqueEmail } from './helpers/api.ts';
import { browser, dashboardFetch, mailbox, requestLink, sessionCookieOf, shownKey, signIn, uniqueAddress } from './helpers/dashboard.ts';
import { faultyD1, seededRandom } from './helpers/faulty-d1.ts';
import { hookUrl } from './helpers/webhooks.ts';
import { keyRing, openSecret } from '../src/webhooks/secret-box.ts';
import { everyDb } from './helpers/databases.ts';

const RUNS = 12;
const random = seededRandom(20261124);

/** A D1 failing a quarter of round trips before and a quarter after commit (at most 3 per request). */
function faulty() {
  return faultyD1((n) => {
    if (n > 3) return undefined;
    const roll = random();
    return roll < 0.25 ? 'before' : roll < 0.5 ? 'after' : undefined;
  }).bindings;
}

// Summed over every database: each account's rows are in one of them.
const count = (sql: string, ...values: unknown[]) => everyDb.count(sql, ...values);
const audits = (accountId: number, action: string) => count('select count(*) as n from dashboard_audit where account_id = ? and action = ?', accountId, action);

async function signedIn() {
  const account = await createAccount();
  const user = await signIn(account.email);
  await user.get('/dashboard/keys');
  return { account, user, faulty: () => browser(user.cookie, { bindings: faulty() }) };
}

describe(`dashboard writes, ${RUNS} times each, a quarter of round trips failing before and a quarter after commit`, { timeout: 120_000 }, () => {
  it('sign-in: one session, one audit row', async () => {
    for (let i = 0; i < RUNS; i++) {
      const account = await createAccount();
      const address = uniqueAddress();
      const { token } = await requestLink(account.email, { address });
      const reply = await dashboardFetch('POST', '/dashboard/sign-in/confirm', { form: { token: token! }, address, bindings: faulty() });
      expect(reply.status).toBe(303);
      expect((await browser(sessionCookieOf(reply)!).get('/dashboard/keys')).status).toBe(200);
      expect(await count('select count(*) as n from dashboard_sessions where account_id = ?', account.id)).toBe(1);
      expect(await audits(account.id, 'signed_in')).toBe(1);
    }
  });

  it('key create, roll and revoke: one key each, the one shown working, one audit row each', async () => {
    for (let i = 0; i < RUNS; i++) {
      const { account, faulty: user } = await signedIn();
      const created = await user().post('/dashboard/keys', { name: `k${i}`, scope: 'read_write' });
      expect(created.status).toBe(200);
      const key = shownKey(created.text);
      expect(await count('select count(*) as n from api_keys where account_id = ?', account.id)).toBe(1);
      const keyId = (await everyDb.prepare('select id from api_keys where account_id = ?').bind(account.id).first<{ id: number }>())!.id;
      const rolled = await user().post(`/dashboard/keys/${keyId}/roll`, { grace: '3600' });
      expect(rolled.status).toBe(200);
      const newKey = shownKey(rolled.text);
      expect(newKey).not.toBe(key);
      expect((await api(newKey).get('/me')).status).toBe(200);
      expect(await count('select count(*) as n from api_keys where account_id = ?', account.id)).toBe(2);
      expect((await user().post(`/dashboard/keys/${keyId}/revoke`)).status).toBe(200);
      expect(await count('select count(*) as n from api_keys where account_id = ? and revoked_at is not null', account.id)).toBe(1);
      for (const action of ['key.created', 'key.rolled', 'key.revoked']) expect(await audits(account.id, action), action).toBe(1);
    }
  });

  it('endpoint create and rotation: one endpoint, the secrets shown being the ones stored, one audit row each', async () => {
    const ring = await keyRing(env.WEBHOOK_SECRET_KEYS);
    const secretOn = (html: string) => /<code id="new-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(html)?.[1];
    for (let i = 0; i < RUNS; i++) {
      const { account, faulty: user } = await signedIn();
      const added = await user().post('/dashboard/webhooks', [
        ['url', hookUrl(`faults${i}`)],
        ['event_types', 'scenario.created'],
      ]);
      expect(added.status).toBe(200);
      expect(await count('select count(*) as n from webhook_endpoints where account_id = ?', account.id)).toBe(1);
      const row = () => everyDb.prepare('select id, secret, secret_key_id from webhook_endpoints where account_id = ?').bind(account.id).first<{ id: string; secret: string; secret_key_id: string }>();
      const stored = async () => {
        const r = (await row())!;
        return openSecret(ring, r.id, { keyId: r.secret_key_id, sealed: r.secret });
      };
      expect(await stored()).toBe(secretOn(added.text));
      const rotated = await user().post(`/dashboard/webhooks/${(await row())!.id}/rotate`, { overlap: '0' });
      expect(rotated.status).toBe(200);
      expect(await stored()).toBe(secretOn(rotated.text));
      for (const action of ['webhook_endpoint.created', 'webhook_endpoint.secret_rotated']) expect(await audits(account.id, action), action).toBe(1);
    }
  });

  it('invite, accept, role change and removal: one invitation, one member, one session, the role asked for, one audit row each', async () => {
    for (let i = 0; i < RUNS; i++) {
      const account = await createAccount();
      const mail = mailbox();
      const owner = await signIn(account.email, { mail });
      const flaky = () => browser(owner.cookie, { mail, bindings: faulty() });
      const email = uniqueEmail();
      const invited = await flaky().post('/dashboard/members/invite', { email, role: 'viewer' });
      expect(invited.status).toBe(200);
      expect(invited.text).toContain(`Invitation sent to ${email}`);
      const db = dbOf(account.id);
      const n = async (sql: string) => (await db.prepare(sql).bind(account.id).first<{ n: number }>())!.n;
      expect(await n('select count(*) as n from dashboard_invitations where account_id = ?')).toBe(1);
      const token = mail.sent.filter((m) => m.to === email).at(-1)!.text.match(/token=([A-Za-z0-9_-]{43})/)![1]!;
      const accepted = await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token }, address: uniqueAddress(), bindings: faulty() });
      expect(accepted.status).toBe(303);
      expect((await browser(sessionCookieOf(accepted)!).get('/dashboard/keys')).status).toBe(200);
      expect(await n('select count(*) as n from dashboard_members where account_id = ?')).toBe(2);
      const memberId = (await db.prepare('select id from dashboard_members where account_id = ? and role = ?').bind(account.id, 'viewer').first<{ id: number }>())!.id;
      expect(await db.prepare('select count(*) as n from dashboard_sessions where member_id = ?').bind(memberId).first('n')).toBe(1);
      const promoted = await flaky().post(`/dashboard/members/${memberId}/role`, { role: 'developer' });
      expect(promoted.status).toBe(200);
      expect(promoted.text).toContain('is now a developer');
      const removed = await flaky().post(`/dashboard/members/${memberId}/remove`);
      expect(removed.status).toBe(200);
      expect(removed.text).toContain('The member is removed');
      expect(await n('select count(*) as n from dashboard_members where account_id = ?')).toBe(1);
      expect(await db.prepare('select count(*) as n from dashboard_sessions where member_id = ?').bind(memberId).first('n')).toBe(0);
      for (const action of ['member.invited', 'member.joined', 'member.role_changed', 'member.removed']) expect(await audits(account.id, action), action).toBe(1);
    }
  });
});
