// The dashboard with accounts spread over several databases (docs/decisions.md, "Capacity past one
// database"): a sign-in link and a session name their account's database, so every page and the
// sign-in itself are one round trip there; asking for a link starts from an e-mail and takes a
// second, through the directory in DB.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { apiKeyDatabase } from '../src/auth/api-key.ts';
import { databaseOfSecret } from '../dashboard/src/session.ts';
import { databaseOfId } from '../src/db/databases.ts';
import { readDatabases } from '../src/env.ts';
import { admin, createAccountWithKeyOn, dbOf, uniqueEmail } from './helpers/api.ts';
import { countingDb, dashboardFetch, requestLink, sessionCookieOf, shownKey, signIn, uniqueAddress } from './helpers/dashboard.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

const OPEN = { DASHBOARD_SIGNUP: 'open' };
const databases = () => readDatabases(env);

describe('the dashboard over several databases', () => {
  it("signs in accounts of every database: the link and the session are in the account's database and name it", async () => {
    for (let d = 0; d < databases().length; d++) {
      const { account } = await createAccountWithKeyOn(d);
      const user = await signIn(account.email);
      expect(databaseOfSecret(user.cookie)).toBe(d);
      for (const [i, db] of databases().entries()) {
        const sessions = await db.prepare('select count(*) as n from dashboard_sessions where account_id = ?').bind(account.id).first<{ n: number }>();
        const links = await db.prepare('select count(*) as n from dashboard_sign_in_links where email = ?').bind(account.email).first<{ n: number }>();
        expect([sessions!.n, links!.n], `database ${i}`).toEqual(i === d ? [1, 1] : [0, 0]);
      }
      // A key made there names the account's database, and the API takes it in one round trip.
      const key = shownKey((await user.post('/dashboard/keys', { name: 'here', scope: 'read_write' })).text);
      expect(apiKeyDatabase(key)).toBe(d);
      const row = await dbOf(account.id).prepare('select id from api_keys where prefix = ? and last_four = ?').bind(key.slice(0, 10), key.slice(-4)).first<{ id: number }>();
      expect(databaseOfId(row!.id)).toBe(d);
      // (Its first use also writes last_used_at, after the reply: the second shows the one trip alone.)
      expect((await roundTripsOf(key, 'GET', '/me')).status).toBe(200);
      expect(await roundTripsOf(key, 'GET', '/me')).toEqual({ status: 200, calls: 1 });
    }
  });

  it('asking for a link takes two round trips (the directory, then the link); signing in with it one, a page one', async () => {
    const { account } = await createAccountWithKeyOn(2);
    const counter = countingDb();
    const address = uniqueAddress();
    const { token } = await requestLink(account.email, { address, bindings: counter.bindings });
    expect(counter.take()).toBe(2);
    counter.reset();
    const confirmed = await dashboardFetch('POST', '/dashboard/sign-in/confirm', { form: { token: token! }, address, bindings: counter.bindings });
    expect(confirmed.status).toBe(303);
    expect(counter.take()).toBe(1);
    counter.reset();
    const page = await dashboardFetch('GET', '/dashboard/keys', { cookie: sessionCookieOf(confirmed), bindings: counter.bindings });
    expect(page.status).toBe(200);
    expect(counter.take()).toBe(1);
  });

  it("open sign-up: a new address's account is made on the database its link named, numbered in its block, its address in the directory", async () => {
    const email = uniqueEmail();
    const { token } = await requestLink(email, { vars: OPEN });
    const database = databaseOfSecret(token!);
    const entry = await env.DB.prepare('select database from account_directory where email = ?').bind(email).first<{ database: number }>();
    expect(entry?.database).toBe(database);
    const user = await signIn(email, { vars: OPEN });
    expect(databaseOfSecret(user.cookie)).toBe(database);
    const account = await databases()[database]!.prepare('select id from accounts where email = ?').bind(email).first<{ id: number }>();
    expect(databaseOfId(account!.id)).toBe(database);
    expect((await user.get('/dashboard/account')).text).toContain(email);
    // Unique across databases: the admin API refuses the address now.
    expect((await admin().post('/admin/accounts', { name: 'Again', email })).status).toBe(409);
  });
});
