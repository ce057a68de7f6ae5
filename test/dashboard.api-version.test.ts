// The account page's API version (docs/decisions.md, "API versions"): the pinned version, the newer
// versions with their changes, an upgrade, a rollback within 72 hours, each audit-logged, each a
// form that answers with a redirect back to the page. The API follows at once.
import { describe, expect, it } from 'vitest';
import { api, createAccount, createKey, dbOf, scenarioData, uniqueEmail } from './helpers/api.ts';
import { signIn } from './helpers/dashboard.ts';

async function signedIn() {
  const account = await createAccount();
  const { key } = await createKey(account.id);
  const token = (await api(key).post('/scenarios', { scenarioData: scenarioData() })).body.data.scenario.token as string;
  return { account, key, token, user: await signIn(account.email) };
}

const currentOn = (html: string) => /<strong id="current-api-version">([0-9-]+)<\/strong>/.exec(html)?.[1];

describe('the API version on the account page', () => {
  it('shows the pinned version and the newer ones with their changes', async () => {
    const { user } = await signedIn();
    const page = await user.get('/dashboard/account');
    expect(page.status).toBe(200);
    expect(currentOn(page.text)).toBe('2026-11-21');
    expect(page.text).toContain('One scenario shape everywhere');
    expect(page.text).toContain('Upgrade to 2026-12-01');
    expect(page.text).not.toContain('Roll back');
  });

  it('upgrades with one click (303 to the page), the API follows, and rolls back within 72 hours; both audit-logged', async () => {
    const { account, key, token, user } = await signedIn();
    await user.get('/dashboard/account');
    const up = await user.post('/dashboard/account/api_version', { api_version: '2026-12-01', from: '2026-11-21' }, { follow: false });
    expect(up.status).toBe(303);
    expect(up.headers.get('Location')).toMatch(/\/dashboard\/account#api-version$/);
    const after = await user.get('/dashboard/account');
    expect(currentOn(after.text)).toBe('2026-12-01');
    expect(after.text).toContain('Roll back to 2026-11-21');
    expect((await api(key).get(`/scenarios/${token}`)).body.data.token).toBe(token);
    expect((await api(key).get('/me')).body.api_version).toBe('2026-12-01');

    // A reload of the upgrade (the same form again) changes nothing more.
    expect((await user.post('/dashboard/account/api_version', { api_version: '2026-12-01', from: '2026-11-21' }, { follow: false })).status).toBe(303);

    const back = await user.post('/dashboard/account/api_version', { api_version: '2026-11-21', from: '2026-12-01', rollback: '1' }, { follow: false });
    expect(back.status).toBe(303);
    expect(currentOn((await user.get('/dashboard/account')).text)).toBe('2026-11-21');
    expect((await api(key).get(`/scenarios/${token}`)).body.data.status).toBe('success');

    const { results } = await dbOf(account.id).prepare("select action, target from dashboard_audit where account_id = ? and action like 'api_version.%' order by seq").bind(account.id).all();
    expect(results).toEqual([
      { action: 'api_version.upgraded', target: '2026-11-21 → 2026-12-01' },
      { action: 'api_version.rolled_back', target: '2026-12-01 → 2026-11-21' },
    ]);
  });

  it('refuses a rollback after 72 hours, and a downgrade dressed as an upgrade', async () => {
    const { account, user } = await signedIn();
    await user.get('/dashboard/account');
    await user.post('/dashboard/account/api_version', { api_version: '2026-12-01', from: '2026-11-21' });
    // Not an upgrade: 2026-11-21 is older.
    await user.post('/dashboard/account/api_version', { api_version: '2026-11-21', from: '2026-12-01' });
    expect(currentOn((await user.get('/dashboard/account')).text)).toBe('2026-12-01');
    const db = dbOf(account.id);
    await db.prepare('update accounts set api_version_changed_at = ? where id = ?').bind(Date.now() - 73 * 3600 * 1000, account.id).run();
    const page = await user.get('/dashboard/account');
    expect(page.text).not.toContain('Roll back');
    await user.post('/dashboard/account/api_version', { api_version: '2026-11-21', from: '2026-12-01', rollback: '1' });
    expect(currentOn((await user.get('/dashboard/account')).text)).toBe('2026-12-01');
  });

  it('a new account made at its first sign-in (open sign-up) is pinned to DEFAULT_API_VERSION', async () => {
    const user = await signIn(uniqueEmail(), { vars: { DASHBOARD_SIGNUP: 'open', DEFAULT_API_VERSION: '2026-12-01' } });
    expect(currentOn((await user.get('/dashboard/account')).text)).toBe('2026-12-01');
  });

  it('needs the form token', async () => {
    const { user } = await signedIn();
    const res = await user.post('/dashboard/account/api_version', { api_version: '2026-12-01', from: '2026-11-21' }, { withToken: false });
    expect(res.status).toBe(403);
  });
});
