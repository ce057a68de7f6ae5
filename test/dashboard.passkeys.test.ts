// Passkeys in the Developers section, through the real dashboard Worker and D1: a software
// authenticator (test/helpers/authenticator.ts) registers a passkey and signs in with it, verified
// by the dashboard's real checks; and the refusals: another origin or RP id, a replayed or expired
// challenge, another session's challenge, an unknown credential, a counter that does not move, a
// removed passkey, a removed member's passkey. Each change is audit-logged naming the member;
// a page and a registration are one round trip, a sign-in two; D1 faults on a registration write
// it once.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { databaseOfId } from '../src/db/databases.ts';
import { createAccount, dbOf, uniqueEmail } from './helpers/api.ts';
import { softwareAuthenticator, type CreateOptions, type Overrides } from './helpers/authenticator.ts';
import { browser, countingDb, dashboardFetch, mailbox, sessionCookieOf, signIn, uniqueAddress, type DashboardOptions } from './helpers/dashboard.ts';
import { faultyD1, seededRandom } from './helpers/faulty-d1.ts';

type Browser = ReturnType<typeof browser>;
type Authenticator = Awaited<ReturnType<typeof softwareAuthenticator>>;

async function registrationOptions(user: Browser, options: DashboardOptions = {}): Promise<CreateOptions & { exclude: string[] }> {
  await user.get('/dashboard/passkeys');
  const token = /name="_token" value="([0-9a-f]{64})"/.exec((await user.get('/dashboard/passkeys')).text)![1]!;
  const reply = await dashboardFetch('POST', '/dashboard/passkeys/options', { ...options, cookie: user.cookie, form: { _token: token } });
  expect(reply.status).toBe(200);
  return JSON.parse(reply.text);
}

async function register(user: Browser, device: Authenticator, name: string, o: Overrides = {}) {
  const options = await registrationOptions(user);
  return user.post('/dashboard/passkeys', { name, credential: await device.create(options, o) });
}

async function signInOptions(): Promise<{ challenge: string; rpId: string }> {
  const reply = await dashboardFetch('POST', '/dashboard/sign-in/passkey/options', { address: uniqueAddress() });
  expect(reply.status).toBe(200);
  return JSON.parse(reply.text);
}

const signInWith = (credential: string, options: DashboardOptions = {}) =>
  dashboardFetch('POST', '/dashboard/sign-in/passkey', { ...options, form: { credential }, address: uniqueAddress() });

const passkeysOf = async (accountId: number, email: string) =>
  (
    await dbOf(accountId)
      .prepare('select p.* from dashboard_passkeys p join dashboard_members m on m.id = p.member_id where m.account_id = ? and m.email = ?')
      .bind(accountId, email)
      .all<Record<string, unknown>>()
  ).results;

const auditOf = async (accountId: number) =>
  (await dbOf(accountId).prepare('select actor, action, target from dashboard_audit where account_id = ? order by seq').bind(accountId).all<{ actor: string; action: string; target: string | null }>()).results;

describe('passkeys', () => {
  it('a member registers a passkey (options from PUBLIC_ORIGIN), signs out, and signs back in with it alone', async () => {
    const account = await createAccount('Passkey Lab');
    const user = await signIn(account.email);
    const device = await softwareAuthenticator();
    const options = await registrationOptions(user);
    expect(options.rp.id).toBe('scenarios.test');
    expect(options.exclude).toEqual([]);
    const added = await user.post('/dashboard/passkeys', { name: 'Work laptop', credential: await device.create(options) });
    expect(added.status).toBe(200);
    expect(added.redirected).toBe('/dashboard/passkeys');
    expect(added.text).toContain('Passkey &quot;Work laptop&quot; added');
    expect(added.text).toContain('<td class="token">Work laptop</td>');
    // A reload shows the list, not the notice again; nothing is added twice.
    expect((await user.get('/dashboard/passkeys')).text).not.toContain('added.');
    const [stored] = await passkeysOf(account.id, account.email);
    expect(stored).toMatchObject({ id: device.id, name: 'Work laptop', sign_count: 0 });
    expect((stored!.public_key as string).length).toBe(87); // 65 bytes, SEC1 uncompressed
    // The challenge is stored only as its hash, used once.
    const challenges = await env.DB.prepare("select * from dashboard_passkey_challenges where purpose = 'register' and used_at is not null").all<Record<string, unknown>>();
    expect(JSON.stringify(challenges.results)).not.toContain(options.challenge);

    await user.post('/dashboard/sign-out', {}, { follow: false });
    expect((await user.get('/dashboard/keys')).status).toBe(303);

    const signedIn = await signInWith(await device.get(await signInOptions()));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard/keys');
    const again = browser(sessionCookieOf(signedIn)!);
    expect((await again.get('/dashboard/keys')).text).toContain(`${account.email}, owner of <strong>Passkey Lab</strong>`);
    expect((await passkeysOf(account.id, account.email))[0]).toMatchObject({ sign_count: 1 });
    const log = await auditOf(account.id);
    expect(log).toContainEqual({ actor: account.email, action: 'passkey.registered', target: 'passkey "Work laptop"' });
    expect(log.at(-1)).toEqual({ actor: account.email, action: 'signed_in', target: 'with passkey "Work laptop"' });
    // The sign-in page offers it; the e-mailed link stays.
    const page = await dashboardFetch('GET', '/dashboard/sign-in');
    expect(page.text).toContain('Sign in with a passkey');
    expect(page.text).toContain('E-mail me a sign-in link');
    // Only the dashboard's own script file runs (no inline script); it may call only this origin.
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toContain('unsafe');
    expect(page.text.match(/<script[^>]*>/g)).toEqual(['<script src="/dashboard/assets/dashboard.js" defer="">']);
    expect((await dashboardFetch('GET', '/dashboard/assets/dashboard.js')).text).toContain('navigator.credentials.get');
  });

  it('rename and remove, audit-logged naming the member; a removed passkey signs in no more', async () => {
    const account = await createAccount();
    const user = await signIn(account.email);
    const device = await softwareAuthenticator();
    await register(user, device, 'Phone');
    const renamed = await user.post(`/dashboard/passkeys/${device.id}/rename`, { name: 'Old phone' });
    expect(renamed.text).toContain('The passkey is renamed');
    expect((await passkeysOf(account.id, account.email))[0]!.name).toBe('Old phone');
    const removed = await user.post(`/dashboard/passkeys/${device.id}/remove`);
    expect(removed.text).toContain('The passkey is removed');
    expect(await passkeysOf(account.id, account.email)).toEqual([]);
    expect((await signInWith(await device.get(await signInOptions()))).status).toBe(400);
    const log = (await auditOf(account.id)).filter((e) => e.action.startsWith('passkey.'));
    expect(log).toEqual([
      { actor: account.email, action: 'passkey.registered', target: 'passkey "Phone"' },
      { actor: account.email, action: 'passkey.renamed', target: 'passkey "Old phone"' },
      { actor: account.email, action: 'passkey.removed', target: 'passkey "Old phone"' },
    ]);
  });

  it('refuses a registration from another origin or RP id, another session\'s or a used challenge, and one without a credential: nothing stored', async () => {
    const account = await createAccount();
    const user = await signIn(account.email);
    const other = await signIn(account.email);
    const device = await softwareAuthenticator();
    for (const o of [{ origin: 'https://evil.test' }, { rpId: 'evil.test' }, { type: 'webauthn.get' }]) {
      const reply = await register(user, device, 'Bad', o);
      expect(reply.status, JSON.stringify(o)).toBe(400);
    }
    // Another session's challenge.
    const theirs = await registrationOptions(other);
    expect((await user.post('/dashboard/passkeys', { name: 'Stolen', credential: await device.create(theirs) })).status).toBe(400);
    // A used challenge.
    const options = await registrationOptions(user);
    expect((await user.post('/dashboard/passkeys', { name: 'First', credential: await device.create(options) })).status).toBe(200);
    const second = await softwareAuthenticator();
    expect((await user.post('/dashboard/passkeys', { name: 'Replay', credential: await second.create(options) })).status).toBe(400);
    // No script: the form says what it needs.
    const bare = await user.post('/dashboard/passkeys', { name: 'No script' });
    expect(bare.status).toBe(400);
    expect(bare.text).toContain('needs JavaScript');
    expect((await passkeysOf(account.id, account.email)).map((p) => p.name)).toEqual(['First']);
  });

  it('refuses a sign-in from another origin, with a replayed or expired challenge, an unknown credential, or a counter that does not move', async () => {
    const account = await createAccount();
    const user = await signIn(account.email);
    const device = await softwareAuthenticator();
    await register(user, device, 'Key');
    const sessions = async () => (await dbOf(account.id).prepare('select count(*) as n from dashboard_sessions where account_id = ?').bind(account.id).first<{ n: number }>())!.n;
    const before = await sessions();

    expect((await signInWith(await device.get(await signInOptions(), { origin: 'https://evil.test' }))).status).toBe(400);
    expect((await signInWith(await device.get(await signInOptions(), { rpId: 'evil.test' }))).status).toBe(400);
    // A challenge the server never gave.
    expect((await signInWith(await device.get({ challenge: 'A'.repeat(43), rpId: 'scenarios.test' }))).status).toBe(400);
    // Replayed: the same assertion twice, then the same challenge freshly signed.
    const options = await signInOptions();
    const assertion = await device.get(options);
    expect((await signInWith(assertion)).status).toBe(303);
    expect((await signInWith(assertion)).status).toBe(400);
    expect((await signInWith(await device.get(options))).status).toBe(400);
    // Expired.
    const late = await signInOptions();
    await env.DB.prepare('update dashboard_passkey_challenges set expires_at = ? where used_at is null').bind(Date.now() - 1).run();
    expect((await signInWith(await device.get(late))).status).toBe(400);
    // Unknown credential (a handle that names a real database and member).
    const stranger = await softwareAuthenticator();
    const handle = JSON.parse(await device.get(await signInOptions())).response.userHandle as string;
    expect((await signInWith(await stranger.get(await signInOptions(), { userHandle: handle }))).status).toBe(400);
    // A counter that does not move forward: a cloned authenticator.
    expect((await signInWith(await device.get(await signInOptions(), { counter: 1 }))).status).toBe(400);
    // Only the first use of the challenge made a session.
    expect(await sessions()).toBe(before + 1);
  });

  it("a removed member's passkeys go with them, in the one batch that removes them", async () => {
    const first = await createAccount('First Co');
    const owner = await signIn(first.email, { mail: mailbox() });
    const mail = mailbox();
    const ownerWithMail = browser(owner.cookie, { mail });
    const email = uniqueEmail();
    await ownerWithMail.post('/dashboard/members/invite', { email, role: 'developer' });
    const token = mail.sent.at(-1)!.text.match(/token=([A-Za-z0-9_-]{43})/)![1]!;
    const accepted = await dashboardFetch('POST', '/dashboard/invitations/accept', { form: { token }, address: uniqueAddress() });
    const colleague = browser(sessionCookieOf(accepted)!);
    const device = await softwareAuthenticator();
    expect((await register(colleague, device, 'Colleague key')).status).toBe(200);
    const signedIn = await signInWith(await device.get(await signInOptions()));
    expect((await browser(sessionCookieOf(signedIn)!).get('/dashboard/keys')).text).toContain(`${email}, developer of <strong>First Co</strong>`);

    const memberId = (await dbOf(first.id).prepare('select id from dashboard_members where email = ?').bind(email).first<{ id: number }>())!.id;
    const counter = countingDb();
    const counted = browser(owner.cookie, { bindings: counter.bindings });
    await counted.get('/dashboard/members');
    counter.reset();
    const removed = await counted.post(`/dashboard/members/${memberId}/remove`, {}, { follow: false });
    expect(removed.status).toBe(303);
    expect(counter.take()).toBe(1);
    expect(await passkeysOf(first.id, email)).toEqual([]);
    expect((await signInWith(await device.get(await signInOptions()))).status).toBe(400);
  });

  it('a page and a registration are one D1 round trip each; a sign-in two', async () => {
    const account = await createAccount();
    const counter = countingDb();
    const user = browser((await signIn(account.email)).cookie, { bindings: counter.bindings });
    const device = await softwareAuthenticator();
    counter.reset();
    expect((await user.get('/dashboard/passkeys')).status).toBe(200);
    expect(counter.take()).toBe(1);
    const options = await registrationOptions(user, { bindings: counter.bindings });
    const credential = await device.create(options);
    counter.reset();
    expect((await user.post('/dashboard/passkeys', { name: 'Counted', credential }, { follow: false })).status).toBe(303);
    expect(counter.take()).toBe(1);
    const signInOpts = await signInOptions();
    counter.reset();
    const reply = await signInWith(await device.get(signInOpts), { bindings: counter.bindings });
    expect(reply.status).toBe(303);
    // The account's database may not be the first: one more round trip then (docs/dashboard.md).
    expect(counter.take()).toBe(databaseOfId(account.id) === 0 ? 2 : 3);
  });

  it('registration and sign-in on a D1 failing before and after commit: stored once, one session, one audit row each, the answer deserved', { timeout: 120_000 }, async () => {
    const random = seededRandom(20261127);
    const faulty = () => faultyD1((n) => (n > 3 ? undefined : random() < 0.25 ? 'before' : random() < 0.5 ? 'after' : undefined)).bindings;
    for (let i = 0; i < 10; i++) {
      const account = await createAccount();
      const user = await signIn(account.email);
      const device = await softwareAuthenticator();
      const options = await registrationOptions(user, { bindings: faulty() });
      const flaky = browser(user.cookie, { bindings: faulty() });
      const reply = await flaky.post('/dashboard/passkeys', { name: `k${i}`, credential: await device.create(options) });
      expect(reply.status).toBe(200);
      expect(await passkeysOf(account.id, account.email)).toHaveLength(1);
      expect((await auditOf(account.id)).filter((e) => e.action === 'passkey.registered')).toHaveLength(1);
      const sessions = async () => (await dbOf(account.id).prepare('select count(*) as n from dashboard_sessions where account_id = ?').bind(account.id).first<{ n: number }>())!.n;
      const before = await sessions();
      const challenge = JSON.parse((await dashboardFetch('POST', '/dashboard/sign-in/passkey/options', { address: uniqueAddress(), bindings: faulty() })).text);
      const signedIn = await signInWith(await device.get(challenge), { bindings: faulty() });
      expect(signedIn.status).toBe(303);
      expect((await browser(sessionCookieOf(signedIn)!).get('/dashboard/keys')).status).toBe(200);
      expect(await sessions()).toBe(before + 1);
      expect((await auditOf(account.id)).filter((e) => e.target === `with passkey "k${i}"`)).toHaveLength(1);
    }
  });
});
