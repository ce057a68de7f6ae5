// chart_img: a signed, expiring URL of an SVG chart that works without the API key.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signChartUrl } from '../src/scenarios/chart/signing.ts';
import { BASE, api, createAccountWithKey, createScenario, scenarioData, adult, send } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';

/** GET of a chart URL, with no Authorization header at all. */
const fetchChart = (url: string) => {
  const u = new URL(url);
  return send('GET', u.pathname + u.search);
};

/** The URL with one query parameter replaced (or removed, for `null`). */
function withParam(url: string, name: string, value: string | null): string {
  const u = new URL(url);
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
}

async function scenarioWithChart(data = scenarioData()) {
  const { account, key } = await createAccountWithKey();
  const scenario = await createScenario(key, data);
  return { account, key, scenario, url: scenario.chart_img };
}

describe('chart_img', () => {
  it('is an absolute URL of this service, /scenarios/{token}/chart.svg?exp=&sig=', async () => {
    const { scenario, url } = await scenarioWithChart();
    const u = new URL(url);
    expect(u.origin).toBe(BASE);
    expect(u.pathname).toBe(`/scenarios/${scenario.token}/chart.svg`);
    expect(Number(u.searchParams.get('exp'))).toBeGreaterThan(Date.now() / 1000);
    expect(u.searchParams.get('sig')).toBeTruthy();
  });

  it('works without any key: 200 image/svg+xml, an <svg> with the state name and the year', async () => {
    const { url } = await scenarioWithChart(scenarioData({ state_id: 6, year: 2031 }));
    const res = await fetchChart(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^image\/svg\+xml/);
    expect(res.text.startsWith('<svg')).toBe(true);
    expect(res.text.trimEnd().endsWith('</svg>')).toBe(true);
    expect(res.text).toContain('California');
    expect(res.text).toContain('2031');
    expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(res.headers.get('Cache-Control')).toMatch(/^private/);
  });

  it('the chart_img of view and of save work too', async () => {
    const { key, scenario } = await scenarioWithChart();
    const view = await api(key).get(`/scenarios/${scenario.token}`);
    expect((await fetchChart(view.body.data.scenario.chart_img)).status).toBe(200);
    const save = await api(key).post('/scenarios/save', { token: scenario.token, scenarioData: scenarioData({ state_id: 48, year: 2029 }) });
    const chart = await fetchChart(save.body.data.scenario.chart_img);
    expect(chart.status).toBe(200);
    expect(chart.text).toContain('Texas');
    expect(chart.text).toContain('2029');
  });

  it('a missing sig or exp is 403 forbidden', async () => {
    const { url } = await scenarioWithChart();
    expectProblem(await fetchChart(withParam(url, 'sig', null)), 403, 'forbidden');
    expectProblem(await fetchChart(withParam(url, 'exp', null)), 403, 'forbidden');
    expectProblem(await fetchChart(withParam(withParam(url, 'exp', null), 'sig', null)), 403, 'forbidden');
  });

  it('a wrong sig is 403 forbidden', async () => {
    const { url } = await scenarioWithChart();
    const sig = new URL(url).searchParams.get('sig')!;
    const [account, mac] = sig.split('.') as [string, string];
    const flipped = mac.slice(0, 5) + (mac[5] === 'A' ? 'B' : 'A') + mac.slice(6);
    for (const bad of [`${account}.${flipped}`, 'garbage', `${account}.`, `${account}.${mac}x`, 'unsigned', mac]) {
      expectProblem(await fetchChart(withParam(url, 'sig', bad)), 403, 'forbidden');
    }
  });

  it('a tampered exp is 403 forbidden', async () => {
    const { url } = await scenarioWithChart();
    const exp = Number(new URL(url).searchParams.get('exp'));
    for (const bad of [String(exp + 1), String(exp + 86_400 * 365), String(exp - 1), 'abc', `${exp}.0`]) {
      expectProblem(await fetchChart(withParam(url, 'exp', bad)), 403, 'forbidden');
    }
  });

  it('an expired URL is 403 forbidden (a URL signed the same way now is accepted)', async () => {
    const { account, scenario } = await scenarioWithChart();
    const fresh = await signChartUrl(env, BASE, account.id, scenario.token, Date.now());
    expect((await fetchChart(fresh)).status).toBe(200);
    const expired = await signChartUrl(env, BASE, account.id, scenario.token, Date.now() - 2 * 3600 * 1000);
    const res = await fetchChart(expired);
    expectProblem(res, 403, 'forbidden');
    expect(res.body.detail).toMatch(/expired/i);
  });

  it("a signature for one token is 403 on another token, even of the same account", async () => {
    const { key, url } = await scenarioWithChart();
    const other = await createScenario(key);
    const u = new URL(url);
    const moved = `${BASE}/scenarios/${other.token}/chart.svg${u.search}`;
    expectProblem(await fetchChart(moved), 403, 'forbidden');
  });

  it("a signature naming another account is 403", async () => {
    const a = await scenarioWithChart();
    const b = await createAccountWithKey();
    const sig = new URL(a.url).searchParams.get('sig')!;
    const swapped = `${b.account.id}.${sig.split('.')[1]}`;
    expectProblem(await fetchChart(withParam(a.url, 'sig', swapped)), 403, 'forbidden');
  });

  it('a deleted scenario is 404 not_found, even with a valid signature', async () => {
    const { key, scenario, url } = await scenarioWithChart();
    expect((await fetchChart(url)).status).toBe(200);
    expect((await api(key).delete(`/scenarios/${scenario.token}/delete`)).status).toBe(200);
    expectProblem(await fetchChart(url), 404, 'not_found');
  });

  it('the nickname is XML-escaped in the SVG', async () => {
    const nickname = '<script>alert("x")</script>&';
    const { url } = await scenarioWithChart(scenarioData({ adult: [adult({ nickname })] }));
    const res = await fetchChart(url);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
  });
});
