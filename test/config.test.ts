// Configuration is read once (src/env.ts readConfig), with each default beside its var's name.
// What only wrangler.toml can hold (rate-limit bindings' limits, cron schedules) is named in
// src/env.ts too; these tests read wrangler.toml so that no value must be kept equal by hand.
import { describe, expect, it } from 'vitest';
import adminToml from '../admin/wrangler.toml?raw';
import dashboardToml from '../dashboard/wrangler.toml?raw';
import wranglerToml from '../wrangler.toml?raw';
import { AUTH_FAILURES_PER_MINUTE, CRONS, DEFAULT_CONFIG, readConfig } from '../src/env.ts';

/** The [vars] section of wrangler.toml, as the Worker gets it. */
function wranglerVars(): Record<string, string> {
  const section = /^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(wranglerToml)?.[1] ?? '';
  return Object.fromEntries([...section.matchAll(/^([A-Z_]+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1], m[2]]));
}

/** The `simple.limit` of the [[ratelimits]] binding named `name`. */
function rateLimit(name: string): number {
  const block = wranglerToml.split('[[ratelimits]]').find((section) => new RegExp(`^name\\s*=\\s*"${name}"`, 'm').test(section));
  return Number(/limit\s*=\s*(\d+)/.exec(block ?? '')?.[1]);
}

describe('configuration', () => {
  it("wrangler.toml's vars are the defaults: a deployment that drops one behaves the same", () => {
    const vars = wranglerVars();
    expect(Object.keys(vars).sort()).toEqual(
      ['ACCOUNT_MAX_SCENARIOS', 'CHART_URL_TTL_SECONDS', 'DATABASE_MAX_BYTES', 'DEFAULT_API_VERSION', 'PUBLIC_ORIGIN', 'RATE_LIMIT_PER_MINUTE', 'SCENARIO_RETENTION_DAYS', 'SCENARIO_REVISIONS_KEPT', 'WEBHOOK_ALLOW_LOOPBACK', 'WEBHOOK_RETRY_BASE_SECONDS'].sort(),
    );
    expect(readConfig(vars)).toEqual(DEFAULT_CONFIG);
    expect(readConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it('reads each var, and takes the default for junk', () => {
    const config = readConfig({
      SCENARIO_RETENTION_DAYS: '30',
      SCENARIO_REVISIONS_KEPT: '5',
      CHART_URL_TTL_SECONDS: '60',
      RATE_LIMIT_PER_MINUTE: '1200',
      WEBHOOK_RETRY_BASE_SECONDS: '0',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ACCOUNT_MAX_SCENARIOS: '7',
      DATABASE_MAX_BYTES: '2000000',
      PUBLIC_ORIGIN: 'https://scenarios.example.org',
      DEFAULT_API_VERSION: '2026-12-01',
    });
    expect(config).toEqual({
      retentionDays: 30,
      revisionsKept: 5,
      chartUrlTtlSeconds: 60,
      rateLimitPerMinute: 1200,
      webhookRetryBaseSeconds: 0,
      webhookAllowLoopback: true,
      accountMaxScenarios: 7,
      databaseMaxBytes: 2_000_000,
      publicOrigin: 'https://scenarios.example.org',
      defaultApiVersion: '2026-12-01',
    });
    const junk = readConfig({ SCENARIO_REVISIONS_KEPT: '0', CHART_URL_TTL_SECONDS: '1.5', RATE_LIMIT_PER_MINUTE: 'many', WEBHOOK_RETRY_BASE_SECONDS: '-1', WEBHOOK_ALLOW_LOOPBACK: 'yes', PUBLIC_ORIGIN: 'https://evil.example/path', DEFAULT_API_VERSION: '2026-13-01', DATABASE_MAX_BYTES: '0' });
    expect(junk).toEqual(DEFAULT_CONFIG);
  });

  it('the per-key limit quoted in replies is the limiter binding’s, and the failed-auth limit is its binding’s', () => {
    expect(rateLimit('KEY_RATE_LIMITER')).toBe(DEFAULT_CONFIG.rateLimitPerMinute);
    expect(rateLimit('AUTH_FAILURE_LIMITER')).toBe(AUTH_FAILURES_PER_MINUTE);
  });

  it("the dashboard Worker runs what the API Worker runs in place of packages: the two [alias] tables are one", () => {
    const aliases = (toml: string, base: string) => {
      const section = /^\[alias\]\n([\s\S]*?)(?=^\[)/m.exec(toml)?.[1] ?? '';
      return Object.fromEntries([...section.matchAll(/^"([^"]+)"\s*=\s*"([^"]+)"/gm)].map(([, name, target]) => [name, target!.replace(base, './')]));
    };
    const api = aliases(wranglerToml, './');
    expect(Object.keys(api).length).toBeGreaterThan(0);
    expect(aliases(dashboardToml, '../')).toEqual(api);
    expect(aliases(adminToml, '../')).toEqual(api);
  });

  it("the admin Worker has the API's databases, failed-auth limiter and vars, as the API names them", () => {
    const blocks = (toml: string, table: string) => toml.split(`[[${table}]]`).slice(1).map((block) => block.split(/^\[/m)[0]!.replace(/^#.*\n/gm, '').replace(/"\.\.\/drizzle"/, '"drizzle"').trim());
    expect(blocks(adminToml, 'd1_databases').map((b) => b.replace(/\n(?=\[)/, ''))).toEqual(blocks(wranglerToml, 'd1_databases'));
    const limiter = blocks(adminToml, 'ratelimits');
    expect(limiter).toEqual(blocks(wranglerToml, 'ratelimits').filter((b) => b.includes('"AUTH_FAILURE_LIMITER"')));
    const vars = (toml: string) => Object.fromEntries([...(/^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(toml)?.[1] ?? '').matchAll(/^([A-Z_0-9]+) = (.*)$/gm)].map(([, name, value]) => [name, value]));
    const admin = vars(adminToml);
    expect(Object.keys(admin).sort()).toEqual(['DATABASE_MAX_BYTES', 'DEFAULT_API_VERSION']);
    for (const [name, value] of Object.entries(admin)) expect(value, name).toBe(vars(wranglerToml)[name]);
  });

  it("the Worker's crons are wrangler.toml's triggers", () => {
    const crons = /^crons\s*=\s*\[([^\]]*)\]/m.exec(wranglerToml)?.[1] ?? '';
    expect([...crons.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort()).toEqual(Object.values(CRONS).sort());
  });
});
