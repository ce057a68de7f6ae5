// Members, roles and invitations in the Developers section: an owner invites by e-mail (a link
// from PUBLIC_ORIGIN, single use, 7 days, stored as a hash, revocable); accepting signs the person
// in as that member; the permission table (dashboard/src/permissions.ts) is enforced on the server
// for every change (every POST route walked with every role: 403 and nothing changed where it says
// no); the last owner stays; removing a member ends their sessions at once; a person in several
// accounts switches between them; audit rows name the member; keys show who made them.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/auth/api-key.ts';
import { databaseOfId } from '../src/db/databases.ts';
import { dashboardApp } from '../dashboard/src/app.ts';
import { may, PERMISSIONS, type Action, type Role } from '../dashboard/src/permissions.ts';
import { api, createAccount, dbOf, uniqueEmail } from './helpers/api.ts';
import { browser, countingDb, dashboardFetch, mailbox, sessionCookieOf, shownKey, signIn, uniqueAddress } from './helpers/dashboard.ts';
import { hookUrl, receiverName } from './helpers/webhooks.ts';

type Browser = ReturnType<typeof browser>;

const invitationToken = (mail: ReturnType<typeof mailbox>, to: string) =>
  mail.sent.filter((m) => m.to === to).at(-1)?.text.match(/\/dashboard\/invitations\/accept\?token=([A-Za-z0-9_-]{43})/)?.[1];

async function anOwner(name = 'Benefits Lab') {
  const account = await createAccount(name);
  const mail = mailbox();
  const owner = await signIn(account.email, { mail });
  return { account, mail, owner };
}

/** The owner invites `email` as `role`; the invitee accepts from the e-mailed link: their browser. */
async function join(owner: Browser, mail: ReturnType<typeof mailbox>, email: string, role: Role): Promise<Browser> {
  const sent = await owner.post('/dashboard/members/invite', { email, role }, { follow: false });
  if (sent.status !== 303) throw new Error(`invite: ${sent.status} ${sent.text.slice(0, 400)}`);
  const token = invitationToken(mail, email);
  if (!token) throw new Error(`no invitation was sent to ${email}`);
  const accepted = await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token }, address: uniqueAddress() });
  const cookie = sessionCookieOf(accepted);
  if (accepted.status !== 303 || !cookie) throw new Error(`accept: ${accepted.status} ${accepted.text.slice(0, 300)}`);
  return browser(cookie);
}

const membersOf = async (accountId: number) =>
  (await dbOf(accountId).prepare('select id, email, role from dashboard_members where account_id = ? order by id').bind(accountId).all<{ id: number; email: string; role: string }>()).results;

describe('invitations', () => {
  it('an owner invites a viewer: a link from PUBLIC_ORIGIN, stored as a hash; its page names the account and role; accepting signs them in as that member', async () => {
    const { account, mail, owner } = await anOwner('Screeners Inc');
    const email = uniqueEmail();
    await owner.post('/dashboard/members/invite', { email, role: 'viewer' });
    const message = mail.sent.find((m) => m.to === email)!;
    expect(message.text).toContain('https://scenarios.test/dashboard/invitations/accept?token=');
    expect(message.text).toContain('Screeners Inc as viewer');
    const token = invitationToken(mail, email)!;
    const stored = await dbOf(account.id).prepare('select * from dashboard_invitations where account_id = ?').bind(account.id).all<Record<string, unknown>>();
    expect(stored.results).toHaveLength(1);
    expect(stored.results[0]!.token_hash).toBe(await sha256Hex(token));
    expect(JSON.stringify(stored.results)).not.toContain(token);
    expect(stored.results[0]!.expires_at as number - (stored.results[0]!.created_at as number)).toBe(7 * 24 * 3600 * 1000);

    const page = await dashboardFetch('GET', `/dashboard/invitations/accept?token=${token}`);
    expect(page.text).toContain(`the account <strong>Screeners Inc</strong> as a viewer`);
    const accepted = await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token } });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/dashboard/keys');
    const colleague = browser(sessionCookieOf(accepted)!);
    const keys = await colleague.get('/dashboard/keys');
    expect(keys.status).toBe(200);
    expect(keys.text).toContain(`${email}, viewer of <strong>Screeners Inc</strong>`);
    expect(keys.text).not.toContain('Create a key');
    expect((await membersOf(account.id)).map((m) => [m.email, m.role])).toEqual([
      [account.email, 'owner'],
      [email, 'viewer'],
    ]);
    // Single use.
    expect((await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token } })).status).toBe(400);
  });

  it('is refused after 7 days, and once revoked', async () => {
    const { account, mail, owner } = await anOwner();
    const late = uniqueEmail();
    await owner.post('/dashboard/members/invite', { email: late, role: 'developer' });
    await dbOf(account.id).prepare('update dashboard_invitations set expires_at = ? where lower(email) = lower(?)').bind(Date.now() - 1, late).run();
    expect((await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token: invitationToken(mail, late)! } })).status).toBe(400);

    const revoked = uniqueEmail();
    const members = await owner.post('/dashboard/members/invite', { email: revoked, role: 'developer' });
    const ref = /members\/invitations\/([0-9a-f]{16})\/revoke/.exec(members.text)![1]!;
    const after = await owner.post(`/dashboard/members/invitations/${ref}/revoke`);
    expect(after.text).toContain('The invitation is revoked');
    expect((await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token: invitationToken(mail, revoked)! } })).status).toBe(400);
    expect((await membersOf(account.id)).length).toBe(1);
  });

  it('refuses to invite an existing member, and a malformed address', async () => {
    const { account, owner } = await anOwner();
    expect((await owner.post('/dashboard/members/invite', { email: account.email, role: 'viewer' })).status).toBe(409);
    expect((await owner.post('/dashboard/members/invite', { email: 'not an address', role: 'viewer' })).status).toBe(400);
    expect((await owner.post('/dashboard/members/invite', { email: uniqueEmail(), role: 'admin' })).status).toBe(400);
  });
});

describe('roles', () => {
  it('a viewer sees the keys and cannot create one (a forged form too); made a developer, they can; keys and audit rows name the member', async () => {
    const { account, mail, owner } = await anOwner();
    const email = uniqueEmail();
    const colleague = await join(owner, mail, email, 'viewer');
    const forged = await colleague.post('/dashboard/keys', { name: 'forged', scope: 'read_write' }, { follow: false });
    expect(forged.status).toBe(403);
    expect(await dbOf(account.id).prepare('select count(*) as n from api_keys where account_id = ?').bind(account.id).first('n')).toBe(0);

    const colleagueId = (await membersOf(account.id)).find((m) => m.email === email)!.id;
    const promoted = await owner.post(`/dashboard/members/${colleagueId}/role`, { role: 'developer' });
    expect(promoted.text).toContain(`${email} is now a developer`);
    const made = await colleague.post('/dashboard/keys', { name: 'by the developer', scope: 'read' });
    const key = shownKey(made.text);
    expect((await api(key).get('/me')).status).toBe(200);
    expect((await owner.get('/dashboard/keys')).text).toContain(`<td class="token">${email}</td>`);
    const audit = (await dbOf(account.id).prepare('select actor, action, target from dashboard_audit where account_id = ? order by seq').bind(account.id).all<{ actor: string; action: string; target: string | null }>()).results;
    expect(audit.map((r) => [r.actor, r.action])).toEqual([
      [account.email, 'signed_in'],
      [account.email, 'member.invited'],
      [email, 'member.joined'],
      [account.email, 'member.role_changed'],
      [email, 'key.created'],
    ]);
    expect(audit[3]!.target).toBe(`${email} is now developer`);
    // A developer cannot manage members.
    expect((await colleague.post('/dashboard/members/invite', { email: uniqueEmail(), role: 'owner' }, { follow: false })).status).toBe(403);
    expect((await colleague.post(`/dashboard/members/${colleagueId}/role`, { role: 'owner' }, { follow: false })).status).toBe(403);
    expect((await membersOf(account.id)).find((m) => m.id === colleagueId)!.role).toBe('developer');
  });

  it('keeps the last owner: not demoted, not removed, cannot leave', async () => {
    const { account, mail, owner } = await anOwner();
    const ownerId = (await membersOf(account.id))[0]!.id;
    expect((await owner.post(`/dashboard/members/${ownerId}/role`, { role: 'viewer' })).status).toBe(409);
    expect((await owner.post(`/dashboard/members/${ownerId}/remove`)).status).toBe(409);
    expect((await owner.post(`/dashboard/members/${ownerId}/remove`, { self: '1' })).status).toBe(409);
    expect((await membersOf(account.id))[0]!.role).toBe('owner');
    // With a second owner, the first may step down.
    const second = await join(owner, mail, uniqueEmail(), 'owner');
    expect((await owner.post(`/dashboard/members/${ownerId}/role`, { role: 'developer' })).status).toBe(200);
    expect((await second.get('/dashboard/members')).status).toBe(200);
    const secondId = (await membersOf(account.id)).find((m) => m.role === 'owner')!.id;
    expect((await second.post(`/dashboard/members/${secondId}/role`, { role: 'viewer' })).status).toBe(409);
  });

  it('removing a member (after a confirmation page) ends their sessions at once', async () => {
    const { account, mail, owner } = await anOwner();
    const email = uniqueEmail();
    const colleague = await join(owner, mail, email, 'developer');
    expect((await colleague.get('/dashboard/keys')).status).toBe(200);
    const id = (await membersOf(account.id)).find((m) => m.email === email)!.id;
    const confirm = await owner.get(`/dashboard/members/${id}/remove`);
    expect(confirm.text).toContain('Remove this member?');
    expect((await colleague.get('/dashboard/keys')).status).toBe(200);
    const removed = await owner.post(`/dashboard/members/${id}/remove`);
    expect(removed.text).toContain('The member is removed');
    expect((await colleague.get('/dashboard/keys')).status).toBe(303);
    expect(await dbOf(account.id).prepare('select count(*) as n from dashboard_sessions where member_id = ?').bind(id).first('n')).toBe(0);
    const audit = await dbOf(account.id).prepare("select target from dashboard_audit where account_id = ? and action = 'member.removed'").bind(account.id).first<{ target: string }>();
    expect(audit!.target).toBe(`${email} (developer)`);
  });

  it('a member may leave; a forged leave naming another member removes nobody', async () => {
    const { account, mail, owner } = await anOwner();
    const viewer = await join(owner, mail, uniqueEmail(), 'viewer');
    const ownerId = (await membersOf(account.id))[0]!.id;
    expect((await viewer.post(`/dashboard/members/${ownerId}/remove`, { self: '1' })).status).toBe(409);
    expect((await viewer.post(`/dashboard/members/${ownerId}/remove`, {}, { follow: false })).status).toBe(403);
    expect((await membersOf(account.id)).length).toBe(2);
    const viewerId = (await membersOf(account.id))[1]!.id;
    const left = await viewer.post(`/dashboard/members/${viewerId}/remove`, { self: '1' }, { follow: false });
    expect(left.status).toBe(303);
    expect(left.headers.get('location')).toBe('/dashboard/sign-in?signed_out');
    expect((await membersOf(account.id)).length).toBe(1);
  });
});

describe('a person in several accounts', () => {
  it('switches between them (their own account, never signed in to before, included)', async () => {
    const first = await createAccount('First Lab');
    // A second account on the same database (a session names its database).
    let second = await createAccount('Second Lab');
    while (databaseOfId(second.id) !== databaseOfId(first.id)) second = await createAccount('Second Lab');
    const mail = mailbox();
    const secondOwner = await signIn(second.email, { mail });
    const person = await join(secondOwner, mail, first.email, 'viewer');
    const accounts = await person.get('/dashboard/accounts');
    expect(accounts.text).toContain('Switch to First Lab');
    const firstMember = /name="member_id" value="(\d+)"/.exec(accounts.text)![1]!;
    const switched = await person.post('/dashboard/accounts/switch', { member_id: firstMember });
    expect(switched.text).toContain(`owner of <strong>First Lab</strong>`);
    // Back again.
    const back = /name="member_id" value="(\d+)"/.exec((await person.get('/dashboard/accounts')).text)![1]!;
    expect((await person.post('/dashboard/accounts/switch', { member_id: back })).text).toContain('viewer of <strong>Second Lab</strong>');
    // Another person's membership cannot be switched to.
    const stranger = await signIn((await createAccount()).email);
    await stranger.post('/dashboard/accounts/switch', { member_id: firstMember });
    expect((await stranger.get('/dashboard/keys')).text).not.toContain('First Lab');
  });

  it('an invited person with no account of their own signs in later by e-mail as that member', async () => {
    const { account, mail, owner } = await anOwner('Invited Lab');
    const email = uniqueEmail();
    await join(owner, mail, email, 'developer');
    const later = await signIn(email);
    expect((await later.get('/dashboard/keys')).text).toContain('developer of <strong>Invited Lab</strong>');
    expect((await membersOf(account.id)).length).toBe(2);
  });
});

/** Every POST route of the dashboard, and the action of the permission table it is (null: not a signed-in change). */
const ROUTE_ACTIONS: Record<string, Action | null> = {
  '/dashboard/sign-in': null,
  '/dashboard/sign-in/confirm': null,
  '/dashboard/invitations/accept': null,
  '/dashboard/sign-out': null,
  '/dashboard/sign-out-everywhere': 'sessions.sign_out_everywhere',
  '/dashboard/keys': 'keys.create',
  '/dashboard/keys/:id/roll': 'keys.roll',
  '/dashboard/keys/:id/revoke': 'keys.revoke',
  '/dashboard/webhooks': 'webhooks.create',
  '/dashboard/webhooks/:id/rotate': 'webhooks.rotate',
  '/dashboard/webhooks/:id/:change{disable|enable}': 'webhooks.status',
  '/dashboard/webhooks/:id/delete': 'webhooks.delete',
  '/dashboard/webhooks/:id/resend': 'webhooks.resend',
  '/dashboard/members/invite': 'members.invite',
  '/dashboard/members/invitations/:ref/revoke': 'members.revoke_invitation',
  '/dashboard/members/:id/role': 'members.role',
  '/dashboard/members/:id/remove': 'members.remove',
  '/dashboard/accounts/switch': 'account.switch',
  '/dashboard/account/api_version': 'account.api_version',
  '/dashboard/passkeys/options': 'passkeys.manage',
  '/dashboard/passkeys': 'passkeys.manage',
  '/dashboard/passkeys/:id/rename': 'passkeys.manage',
  '/dashboard/passkeys/:id/remove': 'passkeys.manage',
  '/dashboard/sign-in/passkey/options': null,
  '/dashboard/sign-in/passkey': null,
};

describe('the permission table, enforced on the server', () => {
  it('names every POST route of the dashboard', () => {
    const posts = dashboardApp.routes.filter((route) => route.method === 'POST').map((route) => route.path);
    expect(new Set(posts)).toEqual(new Set(Object.keys(ROUTE_ACTIONS)));
    for (const action of Object.values(ROUTE_ACTIONS)) if (action) expect(PERMISSIONS[action]).toBeDefined();
  });

  for (const role of ['viewer', 'developer'] as const) {
    it(`walks every change with a ${role}: 403 and nothing changed wherever the table says no`, async () => {
      const { account, mail, owner } = await anOwner();
      const key = shownKey((await owner.post('/dashboard/keys', { name: 'owned', scope: 'read_write' })).text);
      const keyId = (await dbOf(account.id).prepare('select id from api_keys where account_id = ?').bind(account.id).first<{ id: number }>())!.id;
      const list = await owner.post('/dashboard/webhooks', [['url', hookUrl(receiverName())], ['event_types', 'scenario.created']]);
      const endpointId = /webhooks\/(we_[0-9a-f]{32})/.exec(list.text)![1]!;
      const member = await join(owner, mail, uniqueEmail(), role);
      const target = await join(owner, mail, uniqueEmail(), 'viewer');
      void target;
      const pending = await owner.post('/dashboard/members/invite', { email: uniqueEmail(), role: 'viewer' });
      const invitationRef = /members\/invitations\/([0-9a-f]{16})\/revoke/.exec(pending.text)![1]!;
      const targetId = (await membersOf(account.id)).at(-1)!.id;
      const eventId = `evt_${'0'.repeat(32)}`;
      const db = dbOf(account.id);
      const snapshot = async () =>
        JSON.stringify([
          (await db.prepare('select id, key_hash, expires_at, revoked_at from api_keys where account_id = ? order by id').bind(account.id).all()).results,
          (await db.prepare('select id, secret, status from webhook_endpoints where account_id = ?').bind(account.id).all()).results,
          (await db.prepare('select id, email, role from dashboard_members where account_id = ? order by id').bind(account.id).all()).results,
          (await db.prepare('select token_hash, revoked_at, used_at from dashboard_invitations where account_id = ? order by token_hash').bind(account.id).all()).results,
          (await db.prepare('select count(*) as n from dashboard_audit where account_id = ?').bind(account.id).first()),
          (await db.prepare('select count(*) as n from dashboard_sessions where account_id = ?').bind(account.id).first()),
          (await db.prepare('select api_version from accounts where id = ?').bind(account.id).first()),
        ]);
      const before = await snapshot();
      const forms: Record<string, Record<string, string>> = {
        'keys.create': { name: 'x', scope: 'read' },
        'keys.roll': { grace: '0' },
        'webhooks.create': { url: hookUrl(receiverName()), event_types: 'scenario.saved' },
        'webhooks.rotate': { overlap: '0' },
        'webhooks.resend': { event_id: eventId },
        'members.invite': { email: uniqueEmail(), role: 'owner' },
        'members.role': { role: 'owner' },
        'account.api_version': { api_version: '2026-12-01', from: '2026-11-21' },
      };
      let refused = 0;
      for (const [pattern, action] of Object.entries(ROUTE_ACTIONS)) {
        if (action === null || may(role, action)) continue;
        const path = pattern
          .replace(':change{disable|enable}', 'disable')
          .replace(':ref', invitationRef)
          .replace(':id', pattern.includes('/keys/') ? String(keyId) : pattern.includes('/members/') ? String(targetId) : endpointId);
        const reply = await member.post(path, forms[action] ?? {}, { follow: false });
        expect(reply.status, `${role} ${path}`).toBe(403);
        refused += 1;
      }
      expect(refused).toBe(role === 'viewer' ? 13 : 5);
      expect(await snapshot()).toBe(before);
      expect((await api(key).get('/me')).status).toBe(200);
      // The pages still read, every one.
      for (const path of ['/dashboard/keys', '/dashboard/webhooks', `/dashboard/webhooks/${endpointId}`, '/dashboard/members', '/dashboard/account', '/dashboard/audit', '/dashboard/events']) {
        expect((await member.get(path)).status, path).toBe(200);
      }
    });
  }
});

describe('round trips', () => {
  it('every members page and change is one D1 round trip; accepting an invitation two (the directory, then the account)', async () => {
    const { account, mail, owner } = await anOwner();
    const other = uniqueEmail();
    await join(owner, mail, other, 'viewer');
    const otherId = (await membersOf(account.id)).find((m) => m.email === other)!.id;
    const counter = countingDb();
    const counted = browser(owner.cookie, { bindings: counter.bindings, mail });
    const trips = async (send: () => Promise<{ status: number }>) => {
      counter.reset();
      const { status } = await send();
      return { status, calls: counter.take() };
    };
    for (const path of ['/dashboard/members', '/dashboard/accounts', `/dashboard/members/${otherId}/remove`]) {
      expect(await trips(() => counted.get(path)), path).toEqual({ status: 200, calls: 1 });
    }
    const invitee = uniqueEmail();
    expect(await trips(() => counted.post('/dashboard/members/invite', { email: invitee, role: 'developer' }, { follow: false }))).toEqual({ status: 303, calls: 1 });
    const ref = /members\/invitations\/([0-9a-f]{16})\/revoke/.exec((await owner.get('/dashboard/members')).text)![1]!;
    expect(await trips(() => counted.post(`/dashboard/members/${otherId}/role`, { role: 'developer' }, { follow: false }))).toEqual({ status: 303, calls: 1 });
    expect(await trips(() => counted.post(`/dashboard/members/invitations/${ref}/revoke`, {}, { follow: false }))).toEqual({ status: 303, calls: 1 });
    expect(await trips(() => counted.post(`/dashboard/members/${otherId}/remove`, {}, { follow: false }))).toEqual({ status: 303, calls: 1 });
    expect(await trips(() => counted.post('/dashboard/accounts/switch', { member_id: '1' }, { follow: false }))).toEqual({ status: 303, calls: 1 });
    const third = uniqueEmail();
    await owner.post('/dashboard/members/invite', { email: third, role: 'viewer' });
    const token = invitationToken(mail, third)!;
    expect(await trips(() => dashboardFetch('GET', `/dashboard/invitations/accept?token=${token}`, { bindings: counter.bindings }))).toEqual({ status: 200, calls: 1 });
    expect(await trips(() => dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token }, bindings: counter.bindings }))).toEqual({ status: 303, calls: 2 });
  });
});
