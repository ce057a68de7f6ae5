// Share links (DECISIONS, "Share links" and "Security rules of the fourth round"): create, list and
// revoke through the API; the public page and its JSON; one round trip a view, counted; the same
// 404 for every link that opens nothing; failed look-ups throttled per address; links built from
// PUBLIC_ORIGIN, never the Host header.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adult, api, BASE, createAccountWithKey, createAccountWithKeyOn, scenarioData, send } from './helpers/api.ts';
import { expectProblem, freshAddress } from './helpers/contract.ts';
import { everyDb } from './helpers/databases.ts';
import { faultyD1 } from './helpers/faulty-d1.ts';
import { expectValidationFailed, pathsOf } from './helpers/scenarios.ts';
import { readDatabases } from '../src/env.ts';
import worker from './worker-entry.ts';

async function newScenario(data = scenarioData(), database?: number) {
  const { key } = database === undefined ? await createAccountWithKey() : await createAccountWithKeyOn(database);
  const res = await api(key).post('/scenarios', { scenarioData: data });
  expect(res.status, res.text).toBe(201);
  return { key, token: res.body.data.scenario.token as string };
}

async function share(key: string, token: string, body?: unknown) {
  const res = await api(key).post(`/scenarios/${token}/share_links`, body);
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; url: string; expires_at: string; created_at: string; show_nicknames: boolean };
}

/** Opens a link as a browser does (no key), from `address`. */
const open = (url: string, address = freshAddress(), accept = 'text/html,application/xhtml+xml') =>
  send('GET', new URL(url).pathname, { headers: { Accept: accept, ...address } });

describe('creating, listing and revoking share links', () => {
  it('creates a link built from PUBLIC_ORIGIN (never the Host header), 7 days by default, nicknames hidden', async () => {
    const { key, token } = await newScenario();
    const res = await api(key).post(`/scenarios/${token}/share_links`, undefined, { Host: 'attacker.example', 'X-Forwarded-Host': 'attacker.example' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.url).toMatch(new RegExp(`^${env.PUBLIC_ORIGIN}/shared/[A-Za-z0-9_-]{43}$`));
    expect(res.body.id).toMatch(/^sl_[0-9a-f]{32}$/);
    expect(res.body.show_nicknames).toBe(false);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(7 * 24 * 3600 * 1000);
    // Only a hash of the secret is stored.
    const secret = res.body.url.split('/').at(-1);
    const stored = await everyDb.prepare('select * from share_links where id = ?').bind(res.body.id).first<Record<string, unknown>>();
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('takes expires_in (1 hour to 90 days) and show_nicknames; refuses anything else with 422', async () => {
    const { key, token } = await newScenario();
    const link = await share(key, token, { expires_in: 3600, show_nicknames: true });
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(3600 * 1000);
    expect(link.show_nicknames).toBe(true);
    const res = await api(key).post(`/scenarios/${token}/share_links`, { expires_in: 60, show_nicknames: 'yes', url: 'x' });
    expect(pathsOf(expectValidationFailed(res))).toEqual(['expires_in', 'show_nicknames', 'url']);
  });

  it('lists links without their URLs, with views; a read key may list but not create or revoke', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await api(key).post('/scenarios', { scenarioData: scenarioData() }).then((r) => r.body.data.scenario);
    const first = await share(key, token);
    const second = await share(key, token, { show_nicknames: true });
    await open(first.url);
    await open(first.url);
    const reader = await readKeyOf(account.id);
    const list = await api(reader).get(`/scenarios/${token}/share_links`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.has_more).toBe(false);
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([second.id, first.id]);
    expect(list.body.data[1]).toMatchObject({ views: 2, revoked_at: null, show_nicknames: false });
    expect(list.body.data[1].last_viewed_at).not.toBeNull();
    expect(list.body.data[0]).toMatchObject({ views: 0, last_viewed_at: null, show_nicknames: true });
    expect(list.text).not.toContain('/shared/');
    expectProblem(await api(reader).post(`/scenarios/${token}/share_links`), 403, 'forbidden');
    expectProblem(await api(reader).delete(`/scenarios/${token}/share_links/${first.id}`), 403, 'forbidden');
  });

  it("another account's scenario, an unknown token or link id: 404", async () => {
    const { key, token } = await newScenario();
    const link = await share(key, token);
    const other = await createAccountWithKey();
    expectProblem(await api(other.key).post(`/scenarios/${token}/share_links`), 404, 'not_found');
    expectProblem(await api(other.key).get(`/scenarios/${token}/share_links`), 404, 'not_found');
    expectProblem(await api(other.key).delete(`/scenarios/${token}/share_links/${link.id}`), 404, 'not_found');
    expectProblem(await api(key).delete(`/scenarios/${token}/share_links/sl_00000000000000000000000000000000`), 404, 'not_found');
    expect((await open(link.url)).status).toBe(200);
  });

  it('at most 20 live links a scenario: the 21st is 409 too_many_share_links; revoking one makes room', async () => {
    const { key, token } = await newScenario();
    const links = [];
    for (let i = 0; i < 20; i++) links.push(await share(key, token));
    expectProblem(await api(key).post(`/scenarios/${token}/share_links`), 409, 'too_many_share_links');
    expect((await api(key).delete(`/scenarios/${token}/share_links/${links[0]!.id}`)).status).toBe(200);
    await share(key, token);
  });

  it('revoking stops the link at once; revoking again answers the same', async () => {
    const { key, token } = await newScenario();
    const link = await share(key, token);
    expect((await open(link.url)).status).toBe(200);
    const revoked = await api(key).delete(`/scenarios/${token}/share_links/${link.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await open(link.url)).status).toBe(404);
    const again = await api(key).delete(`/scenarios/${token}/share_links/${link.id}`);
    expect(again.body).toEqual(revoked.body);
  });
});

/** A reader's key on the account. */
async function readKeyOf(accountId: number): Promise<string> {
  const res = await send('POST', `/admin/accounts/${accountId}/keys`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body: { scope: 'read' } });
  return res.body.key;
}

describe('the page a link opens', () => {
  const household = scenarioData({
    sub_division: 7,
    programs: ['snap', 'medic_aid', 'wic'],
    adult: [adult({ nickname: 'Maria <b>R.</b>', adult_type: 3, wage_rate: '15.25', work_hours_per_week: '30' }), adult({ nickname: 'Jo', is_veteran: 1, monthly_disability: '812.40' })],
  });

  it('is server-rendered HTML with no script, a strict CSP, noindex, no referrer and no caching', async () => {
    const { key, token } = await newScenario(household);
    const res = await open((await share(key, token)).url);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('Content-Security-Policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    expect(csp).not.toContain('unsafe');
    expect(res.headers.get('X-Robots-Tag')).toBe('noindex, nofollow');
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.text).toContain('<meta name="robots" content="noindex,nofollow">');
    expect(res.text).not.toMatch(/<script|\son[a-z]+=|javascript:/i);
    // The style block's hash is the one the CSP allows.
    const style = /<style>([^<]*)<\/style>/.exec(res.text)![1]!;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(style));
    expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  });

  it('says the household in words, codes as numbers, with the chart; nicknames hidden unless the link shows them', async () => {
    const { key, token } = await newScenario(household);
    const page = (await open((await share(key, token)).url)).text;
    for (const words of ['New York', '2026', '2 adults, 2 children', 'Supplemental Nutrition Assistance Program', 'Medicaid', 'Women, Infants, and Children',
      '$15.25 an hour', '30 hours', '$812.40 a month', 'Veteran</dt><dd>Yes', 'Married</dt><dd>Yes', 'Adult type <span class="code">(code)</span></dt><dd>3',
      'Sub-division <span class="code">(code)</span></dt><dd>7', 'Relation to caretaker <span class="code">(code)</span></dt><dd>1', '<svg']) {
      expect(page).toContain(words);
    }
    expect(page).not.toContain('Maria');
    expect(page).not.toContain(token);
    expect(page).toContain('Adult 1</h3>');
    const named = (await open((await share(key, token, { show_nicknames: true })).url)).text;
    expect(named).toContain('Adult 1: Maria &#60;b&#62;R.&#60;/b&#62;</h3>');
    expect(named).not.toContain('<b>R.');
  });

  it('answers JSON with Accept: application/json: state, data without token (or nicknames), version, shared_until', async () => {
    const { key, token } = await newScenario(household);
    const link = await share(key, token);
    const res = await open(link.url, freshAddress(), 'application/json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['scenario_data', 'shared_until', 'state', 'version']);
    expect(res.body.data.state).toEqual({ id: 36, name: 'New York', slug: 'new-york' });
    expect(res.body.data.version).toBe(1);
    expect(res.body.data.shared_until).toBe(link.expires_at);
    expect(res.body.data.scenario_data.token).toBeUndefined();
    expect(res.body.data.scenario_data.adult[0].nickname).toBeUndefined();
    expect(res.body.data.scenario_data.adult[0].wage_rate).toBe('15.25');
    expect(res.text).not.toContain(token);
    // The current data: a save shows at once.
    await api(key).post('/scenarios/save', { token, scenarioData: { ...household, year: 2027 } });
    expect((await open(link.url, freshAddress(), 'application/json')).body.data).toMatchObject({ version: 2, scenario_data: { year: 2027 } });
  });

  it('is the same 404 for an unknown, malformed, revoked or expired link and for a deleted scenario', async () => {
    const { key, token } = await newScenario();
    const [revoked, expired] = [await share(key, token), await share(key, token)];
    await api(key).delete(`/scenarios/${token}/share_links/${revoked.id}`);
    await everyDb.prepare('update share_links set expires_at = ? where id = ?').bind(Date.now() - 1, expired.id).run();
    const other = await newScenario();
    const gone = await share(other.key, other.token);
    expect((await api(other.key).delete(`/scenarios/${other.token}`)).status).toBe(200);
    expect(await everyDb.count('select count(*) as n from share_links where id = ?', gone.id)).toBe(0);
    const unknown = `${env.PUBLIC_ORIGIN}/shared/A${'x'.repeat(42)}`;
    const urls = [unknown, `${env.PUBLIC_ORIGIN}/shared/short`, `${env.PUBLIC_ORIGIN}/shared/Z${'x'.repeat(42)}`, revoked.url, expired.url, gone.url];
    const pages = await Promise.all(urls.map((url) => open(url)));
    for (const page of pages) {
      expect(page.status).toBe(404);
      expect(page.text).toBe(pages[0]!.text);
      expect(page.headers.get('Content-Security-Policy')).toBe(pages[0]!.headers.get('Content-Security-Policy'));
    }
    const json = await Promise.all(urls.map((url) => open(url, freshAddress(), 'application/json')));
    for (const res of json) {
      expectProblem(res, 404, 'not_found');
      expect(res.body.detail).toBe(json[0]!.body.detail);
    }
  });

  it('opens a link to a scenario on another database (the secret names it)', async () => {
    const last = readDatabases(env).length - 1;
    const { key, token } = await newScenario(scenarioData(), last);
    const link = await share(key, token);
    expect(link.url.split('/').at(-1)![0]).toBe('ABCDEFGHIJKLM'[last]);
    expect((await open(link.url)).status).toBe(200);
  });
});

describe('one round trip a view, and failed look-ups throttled per address', () => {
  /** The view through the Worker on a counting D1. */
  async function roundTripsOfView(url: string) {
    const d1 = faultyD1(() => undefined);
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(BASE + new URL(url).pathname, { headers: freshAddress() }) as Request<unknown, IncomingRequestCfProperties>, { ...env, ...d1.bindings }, ctx);
    await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    return { status: res.status, calls: d1.calls };
  }

  it('a view is one D1 round trip, and counts the view', async () => {
    const { key, token } = await newScenario();
    const link = await share(key, token);
    expect(await roundTripsOfView(link.url)).toEqual({ status: 200, calls: 1 });
    expect(await roundTripsOfView(link.url)).toEqual({ status: 200, calls: 1 });
    const [listed] = (await api(key).get(`/scenarios/${token}/share_links`)).body.data;
    expect(listed.views).toBe(2);
  });

  it('failed look-ups count against the address: 429 past the limit, while a live link still opens from it', async () => {
    const { key, token } = await newScenario();
    const link = await share(key, token);
    const address = freshAddress();
    // Until the first 429: the limiter counts 60 a minute in windows aligned to the clock, so a run
    // that crosses a minute's end starts counting again (as auth.test.ts's throttle allows).
    const statuses: number[] = [];
    for (let i = 0; i < 125 && !statuses.includes(429); i++) statuses.push((await open(`${env.PUBLIC_ORIGIN}/shared/A${String(i).padStart(42, 'q')}`, address)).status);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(60);
    expect(statuses.slice(0, -1).every((s) => s === 404)).toBe(true);
    expect((await open(`${env.PUBLIC_ORIGIN}/shared/Aonce-more${'q'.repeat(33)}`, address)).status).toBe(429);
    const refused = await open(`${env.PUBLIC_ORIGIN}/shared/Bnothing${'q'.repeat(35)}`, address, 'application/json');
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers.get('Retry-After')).toBe('60');
    expect((await open(link.url, address)).status).toBe(200);
    // Another address is not affected.
    expect((await open(`${env.PUBLIC_ORIGIN}/shared/A${'z'.repeat(42)}`)).status).toBe(404);
  });
});
