// npm run bench:latency: how many D1 round trips each endpoint makes its caller wait for. The
// service's deployed bundle is served with three D1 databases (DB, DB_2, DB_3, as npm start and the
// tests run; the measured account is on the third), each behind a proxy that adds a fixed delay
// per round trip (bench/latency/), once with no delay and once with BENCH_LATENCY_DELAY_MS (50);
// requests go one at a time (c=1), alternating between the two servers, and the table gives
// p50/p90 at each delay and the effective sequential round trips, (p50 delayed − p50 at 0) / delay.
// It knows the service only by its HTTP API, its D1 bindings and its migrations: accounts and keys
// come from the admin API, scenarios from POST /scenarios. See bench/README.md.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleAdmin, bundleWithEntry } from './lib/bundle.ts';
import { databaseOfId } from '../src/db/databases.ts';
import { applyMigrations } from './lib/migrations.ts';
import { median } from './lib/report.ts';
import { BINDINGS, databaseBindings, startServer, type Server } from './lib/server.ts';

/** Databases the Worker is served with; the measured account is on the last. */
const DATABASES = 3;

const OUT = 'bench/.out';
const env = process.env;
// Set here rather than in the npm script, so that it holds in every shell (Windows' too).
env.WRANGLER_SEND_METRICS = 'false';
env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
const config = {
  /** Timed requests per endpoint and delay. */
  requests: Number(env.BENCH_LATENCY_REQUESTS ?? 40),
  /** Untimed requests first, per endpoint and delay (JIT, caches). */
  warmup: Number(env.BENCH_LATENCY_WARMUP ?? 5),
  /** Delay per D1 round trip of the delayed server, ms. */
  delay: Number(env.BENCH_LATENCY_DELAY_MS ?? 50),
  endpoints: env.BENCH_LATENCY_ENDPOINTS?.split(',').map((s) => s.trim()),
};
for (const k of ['requests', 'warmup', 'delay'] as const) {
  if (!Number.isInteger(config[k]) || config[k] < 0) throw new Error(`${k} must be a whole number, got ${config[k]}`);
}
if (config.requests < 1 || config.delay < 1) throw new Error('BENCH_LATENCY_REQUESTS and BENCH_LATENCY_DELAY_MS must be at least 1');

const log = (line: string) => process.stderr.write(`[latency] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// -------------------------------------------------------------------------------------------
// A server per delay, each with its own database, account and key (set up over HTTP).

const STATE_ROOT = env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? join('/dev/shm', `scenario-latency-${process.pid}`) : join(OUT, 'latency-state'));
process.on('exit', () => rmSync(STATE_ROOT, { recursive: true, force: true }));

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Site {
  delay: number;
  server: Server;
  key: string;
  call: (req: Req, bearer?: string) => Promise<Reply>;
}

async function callAt(base: string, { method, path, headers = {}, body }: Req, bearer: string): Promise<Reply> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, ms: performance.now() - started };
}

function expect(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 400)}`);
  return reply;
}

let ADMIN_WORKER: string | undefined;

async function startSite([scriptPath, ...modules]: string[], delay: number): Promise<Site> {
  if (scriptPath === undefined) throw new Error('no entry module');
  const stateDir = join(STATE_ROOT, `delay-${delay}`);
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  // Three databases, as `npm start` and the tests run: the account measured is the third one
  // made, so it lands on the third database (new accounts go to the one with the fewest), and the
  // round trips counted are those of a key that names a database other than the first.
  const server = await startServer({ scriptPath, modules, stateDir, databases: DATABASES, bindings: { BENCH_D1_DELAY_MS: String(delay) }, admin: ADMIN_WORKER });
  try {
    for (const name of databaseBindings(DATABASES)) await applyMigrations(await server.mf.getD1Database(name));
    const admin = (req: Req) => callAt(server.url, req, BINDINGS.ADMIN_TOKEN);
    for (let i = 1; i < DATABASES; i++) {
      expect(await admin({ method: 'POST', path: '/admin/accounts', body: { name: 'Elsewhere', email: `elsewhere-${i}@example.com` } }), 201, 'create account');
    }
    const account = JSON.parse(
      expect(await admin({ method: 'POST', path: '/admin/accounts', body: { name: 'Latency Bench', email: 'latency@example.com' } }), 201, 'create account').text,
    ) as { id: number };
    // Its id names its database (src/db/databases.ts): the last one, as placement promises.
    if (databaseOfId(account.id) !== DATABASES - 1) throw new Error(`the measured account is on database ${databaseOfId(account.id)}, not ${DATABASES - 1}`);
    const created = JSON.parse(
      expect(await admin({ method: 'POST', path: `/admin/accounts/${account.id}/keys`, body: { name: 'latency', scope: 'read_write' } }), 201, 'create key').text,
    ) as { key: string };
    const site: Site = { delay, server, key: created.key, call: (req, bearer = created.key) => callAt(server.url, req, bearer) };
    // Something to list.
    for (let i = 0; i < 10; i++) await createScenario(site);
    return site;
  } catch (error) {
    await server.dispose();
    throw error;
  }
}

/** Requests after the reply and their round trips, since the server started (entry.ts). */
async function afterReply(site: Site): Promise<{ requests: number; roundTrips: number }> {
  return JSON.parse((await site.call({ method: 'GET', path: '/__bench/d1' })).text) as { requests: number; roundTrips: number };
}

// -------------------------------------------------------------------------------------------
// The endpoints. Each gets `count` requests per site; stateful ones prepare what those need
// (untimed) and follow the replies (the ETag a save returns is the next If-Match).

/** Two adults and two children: what a typical client sends. */
const HOUSEHOLD = {
  year: 2026,
  state_id: 36,
  programs: ['snap', 'eitc', 'ctc', 'child_care', 'medic_aid'],
  adult: [
    { age: 34, nickname: 'Parent A', wage_rate: '18.50', yes_or_no: 1, adult_type: 1, is_married: 1, is_veteran: 0, unemp_comp: '0', is_pregnant: 0, monthly_ssi: '0', child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1, work_hours_per_week: '40', is_spouse_in_household: 1, same_legal_hh_fed_state: 1, training_hours_per_week: '0', aged_or_disability_income: 0 },
    { age: 31, nickname: 'Parent B', wage_rate: '0', yes_or_no: 1, adult_type: 1, is_married: 1, is_veteran: 0, unemp_comp: '420.00', is_pregnant: 0, monthly_ssi: '0', child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1, work_hours_per_week: '0', is_spouse_in_household: 1, same_legal_hh_fed_state: 1, training_hours_per_week: '6', aged_or_disability_income: 0 },
  ],
  child: [
    { age: 7, sex: 1, caretaker: 1, in_school: 1, yes_or_no: 1, is_disabled: 0, cc_rate_category: 2, ssi_income_amount: '0', child_care_setting: 1, relation_to_caretaker: 1, same_legal_hh_fed_state: 1, purchase_and_prepare_meals_together: 1 },
    { age: 3, sex: 2, caretaker: 1, in_school: 0, yes_or_no: 1, is_disabled: 0, cc_rate_category: 1, ssi_income_amount: '0', child_care_setting: 2, relation_to_caretaker: 1, same_legal_hh_fed_state: 1, purchase_and_prepare_meals_together: 1 },
  ],
};

const CREATE: Req = { method: 'POST', path: '/scenarios', body: { scenarioData: HOUSEHOLD } };

async function createScenario(site: Site): Promise<{ token: string; etag: string }> {
  const reply = expect(await site.call(CREATE), 201, 'create (setup)');
  const token = /\/scenarios\/([^/]+)$/.exec(reply.headers.get('location') ?? '')?.[1];
  const etag = reply.headers.get('etag');
  if (!token || !etag) throw new Error(`create (setup): no Location or ETag (${reply.headers.get('location')}, ${etag})`);
  return { token, etag };
}

/** A scenario saved until it has `revisions` revisions (the most kept by default: 100). */
async function withHistory(site: Site, revisions: number): Promise<{ token: string; etag: string }> {
  const { token } = await createScenario(site);
  let etag = '"v1"';
  for (let v = 2; v <= revisions; v++) {
    const year = 1990 + (v % 100);
    const reply = expect(await site.call({ method: 'POST', path: '/scenarios/save', body: { token, scenarioData: { ...HOUSEHOLD, year } } }), 200, 'save (setup)');
    etag = reply.headers.get('etag') ?? '';
  }
  return { token, etag };
}

interface Driver {
  next(): Req;
  /** Checks a reply beyond its status, and follows it. */
  seen?(reply: Reply): void;
}

interface Endpoint {
  name: string;
  title: string;
  status: number;
  prepare(site: Site, count: number): Promise<Driver>;
}

const fixed = (req: Req) => async (): Promise<Driver> => ({ next: () => req });

const ENDPOINTS: Endpoint[] = [
  { name: 'me', title: 'GET /me', status: 200, prepare: fixed({ method: 'GET', path: '/me' }) },
  { name: 'list', title: 'list (GET /scenarios)', status: 200, prepare: fixed({ method: 'GET', path: '/scenarios' }) },
  {
    name: 'list_filtered',
    title: 'list, every filter (state_id, year, program, updated_since)',
    status: 200,
    prepare: fixed({ method: 'GET', path: '/scenarios?state_id=36&year=2026&program=snap&updated_since=2000-01-01T00:00:00Z' }),
  },
  // One page (up to 1,000 rows) per round trip: these few scenarios are one page.
  { name: 'export', title: 'export, one page (GET /scenarios/export)', status: 200, prepare: fixed({ method: 'GET', path: '/scenarios/export' }) },
  { name: 'export_csv', title: 'export, one page, CSV', status: 200, prepare: fixed({ method: 'GET', path: '/scenarios/export?format=csv' }) },
  {
    name: 'view',
    title: 'view (GET /scenarios/{token})',
    status: 200,
    async prepare(site) {
      const { token } = await createScenario(site);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}` }) };
    },
  },
  {
    name: 'view_304',
    title: 'view, If-None-Match (304)',
    status: 304,
    async prepare(site) {
      const { token, etag } = await createScenario(site);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}`, headers: { 'If-None-Match': etag } }) };
    },
  },
  { name: 'create', title: 'create (POST /scenarios)', status: 201, prepare: fixed(CREATE) },
  {
    name: 'create_key_new',
    title: 'create, new Idempotency-Key',
    status: 201,
    prepare: async () => ({ next: () => ({ ...CREATE, headers: { 'Idempotency-Key': `latency-${randomUUID()}` } }) }),
  },
  {
    name: 'create_key_replay',
    title: 'create, Idempotency-Key replayed',
    status: 201,
    async prepare(site) {
      const req = { ...CREATE, headers: { 'Idempotency-Key': `latency-${randomUUID()}` } };
      expect(await site.call(req), 201, 'create with Idempotency-Key (setup)');
      return {
        next: () => req,
        seen(reply) {
          if (reply.headers.get('idempotent-replayed') !== 'true') throw new Error('create_key_replay: the reply was not a replay');
        },
      };
    },
  },
  {
    name: 'save',
    title: 'save (POST /scenarios/save)',
    status: 200,
    async prepare(site) {
      const { token } = await createScenario(site);
      return { next: () => ({ method: 'POST', path: '/scenarios/save', body: { token, scenarioData: HOUSEHOLD } }) };
    },
  },
  {
    name: 'save_if_match',
    title: 'save, If-Match',
    status: 200,
    async prepare(site) {
      const created = await createScenario(site);
      let etag = created.etag;
      return {
        next: () => ({ method: 'POST', path: '/scenarios/save', headers: { 'If-Match': etag }, body: { token: created.token, scenarioData: HOUSEHOLD } }),
        seen(reply) {
          const next = reply.headers.get('etag');
          if (!next || next === etag) throw new Error(`save_if_match: the ETag did not move (${etag} → ${next})`);
          etag = next;
        },
      };
    },
  },
  {
    name: 'save_history',
    title: 'save, 100 revisions kept',
    status: 200,
    async prepare(site) {
      const { token } = await withHistory(site, 100);
      return { next: () => ({ method: 'POST', path: '/scenarios/save', body: { token, scenarioData: HOUSEHOLD } }) };
    },
  },
  {
    name: 'restore',
    title: 'restore, If-Match, 100 revisions kept',
    status: 200,
    async prepare(site) {
      const scenario = await withHistory(site, 100);
      let etag = scenario.etag;
      const version = () => Number(/^"v(\d+)"$/.exec(etag)?.[1]);
      return {
        // The version before the current one: always kept.
        next: () => ({ method: 'POST', path: `/scenarios/${scenario.token}/revisions/${version() - 1}/restore`, headers: { 'If-Match': etag } }),
        seen(reply) {
          const next = reply.headers.get('etag');
          if (!next || next === etag) throw new Error(`restore: the ETag did not move (${etag} → ${next})`);
          etag = next;
        },
      };
    },
  },
  {
    name: 'view_history',
    title: 'view, 100 revisions kept',
    status: 200,
    async prepare(site) {
      const { token } = await withHistory(site, 100);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}` }) };
    },
  },
  {
    name: 'revisions',
    title: 'list revisions, 1 kept',
    status: 200,
    async prepare(site) {
      const { token } = await createScenario(site);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}/revisions` }) };
    },
  },
  {
    name: 'revisions_history',
    title: 'list revisions, 100 kept',
    status: 200,
    async prepare(site) {
      const { token } = await withHistory(site, 100);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}/revisions` }) };
    },
  },
  {
    name: 'diff',
    title: 'diff, 100 revisions kept',
    status: 200,
    async prepare(site) {
      const { token, etag } = await withHistory(site, 100);
      const current = Number(/^"v(\d+)"$/.exec(etag)?.[1]);
      return { next: () => ({ method: 'GET', path: `/scenarios/${token}/diff?from=${current - 99}` }) };
    },
  },
  {
    name: 'delete',
    title: 'delete (DELETE /scenarios/{token})',
    status: 200,
    async prepare(site, count) {
      const tokens: string[] = [];
      for (let i = 0; i < count; i++) tokens.push((await createScenario(site)).token);
      return {
        next() {
          const token = tokens.pop();
          if (token === undefined) throw new Error('delete: ran out of scenarios');
          return { method: 'DELETE', path: `/scenarios/${token}` };
        },
      };
    },
  },
];

// -------------------------------------------------------------------------------------------
// Measuring and reporting.

interface Sample {
  ms: number;
  awaited: number;
  ended: number;
  pending: number;
}

interface Row {
  endpoint: string;
  title: string;
  /** Per delay (ms): the timed samples, and round trips after the reply per request. */
  byDelay: Record<number, { samples: Sample[]; afterReply: number }>;
}

function header(reply: Reply, name: string): number {
  const value = reply.headers.get(name);
  if (value === null) throw new Error(`no ${name} header: is the bench entry serving?`);
  return Number(value);
}

/** Nearest-rank percentile. */
function percentile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)] as number;
}

function range(values: number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

async function measure(endpoint: Endpoint, sites: Site[]): Promise<Row> {
  const count = config.warmup + config.requests;
  const drivers = new Map<Site, Driver>();
  for (const site of sites) drivers.set(site, await endpoint.prepare(site, count));
  // Let the setup's waitUntil work finish before the tally is read.
  const settle = () => sleep(3 * config.delay + 50);
  await settle();
  const before = new Map<Site, { requests: number; roundTrips: number }>();
  for (const site of sites) before.set(site, await afterReply(site));
  const samples = new Map<Site, Sample[]>(sites.map((s) => [s, []]));
  for (let i = 0; i < count; i++) {
    // Alternate which server goes first, so drift over the seconds falls on both alike.
    for (const site of i % 2 ? [...sites].reverse() : sites) {
      const driver = drivers.get(site) as Driver;
      const reply = expect(await site.call(driver.next()), endpoint.status, `${endpoint.name} at ${site.delay} ms`);
      driver.seen?.(reply);
      if (i >= config.warmup) {
        samples.get(site)?.push({
          ms: reply.ms,
          awaited: header(reply, 'x-bench-d1-awaited'),
          ended: header(reply, 'x-bench-d1-ended'),
          pending: header(reply, 'x-bench-d1-pending'),
        });
      }
    }
  }
  await settle();
  const row: Row = { endpoint: endpoint.name, title: endpoint.title, byDelay: {} };
  for (const site of sites) {
    const a = before.get(site) as { requests: number; roundTrips: number };
    const b = await afterReply(site);
    row.byDelay[site.delay] = { samples: samples.get(site) as Sample[], afterReply: (b.roundTrips - a.roundTrips) / Math.max(1, b.requests - a.requests) };
  }
  return row;
}

/**
 * Timings and counts that disagree: the round trips the clock saw differ from the ones the proxy
 * counted by half a round trip or more (say, D1 reached through something else than the binding
 * the Worker's fetch was given, or a delay that is not real time).
 */
function disagreements(rows: Row[], delay: number): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const zero = row.byDelay[0];
    const slow = row.byDelay[delay];
    if (!zero || !slow) continue;
    const effective = (median(slow.samples.map((s) => s.ms)) - median(zero.samples.map((s) => s.ms))) / delay;
    const counted = median(slow.samples.map((s) => s.awaited));
    if (Math.abs(effective - counted) >= 0.5) out.push(`${row.endpoint}: ${effective.toFixed(2)} round trips by the clock, ${counted} counted by the proxy`);
  }
  return out;
}

function formatTable(rows: Row[], delay: number): string {
  const f1 = (ms: number) => ms.toFixed(1);
  const lines = [
    `| endpoint | round trips awaited | p50 at 0 ms | p90 at 0 ms | p50 at ${delay} ms | p90 at ${delay} ms | effective sequential round trips | round trips after the reply |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const zero = row.byDelay[0];
    const slow = row.byDelay[delay];
    if (!zero || !slow) continue;
    const all = [...zero.samples, ...slow.samples];
    const awaited = range(all.map((s) => s.awaited));
    // A reply that also waited on round trips that overlapped others: say so.
    const overlapped = all.some((s) => s.ended > s.awaited) ? ` (${range(all.map((s) => s.ended))} in all)` : '';
    const p50zero = median(zero.samples.map((s) => s.ms));
    const p50slow = median(slow.samples.map((s) => s.ms));
    const after = slow.afterReply;
    lines.push(
      `| ${row.title} | ${awaited}${overlapped} | ${f1(p50zero)} | ${f1(percentile(zero.samples.map((s) => s.ms), 0.9))} | ` +
        `${f1(p50slow)} | ${f1(percentile(slow.samples.map((s) => s.ms), 0.9))} | ${((p50slow - p50zero) / delay).toFixed(2)} | ${after === 0 ? '0' : after.toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

function git(args: string[]): string {
  return spawnSync('git', args, { encoding: 'utf8' }).stdout.trim();
}

async function main(): Promise<void> {
  const endpoints = config.endpoints ? ENDPOINTS.filter((e) => config.endpoints?.includes(e.name)) : ENDPOINTS;
  const unknown = (config.endpoints ?? []).filter((name) => !ENDPOINTS.some((e) => e.name === name));
  if (unknown.length > 0) throw new Error(`unknown endpoint(s) ${unknown.join(', ')} (one of ${ENDPOINTS.map((e) => e.name).join(', ')})`);
  const startedAt = new Date();
  mkdirSync(OUT, { recursive: true });
  log(`config ${JSON.stringify(config)}`);
  log('bundling the service (wrangler deploy --dry-run --minify) and the bench entry around it');
  const modules = await bundleWithEntry('bench/latency/entry.ts', join(OUT, 'latency'));
  // The accounts and keys are made through /admin: the admin API's Worker, behind ADMIN.
  ADMIN_WORKER = bundleAdmin(join(OUT, 'latency-admin')).scriptPath;

  const sites: Site[] = [];
  try {
    for (const delay of [0, config.delay]) {
      sites.push(await startSite(modules, delay));
      log(`server with ${delay} ms per D1 round trip: ready`);
    }
    // The delay must be real time inside workerd: a /me at the delayed server takes at least one round trip.
    const probe = await (sites[1] as Site).call({ method: 'GET', path: '/me' });
    if (probe.ms < config.delay) throw new Error(`GET /me took ${probe.ms.toFixed(1)} ms with ${config.delay} ms per round trip: the delay is not applied`);

    const rows: Row[] = [];
    for (const endpoint of endpoints) {
      const row = await measure(endpoint, sites);
      rows.push(row);
      const zero = row.byDelay[0]?.samples ?? [];
      const slow = row.byDelay[config.delay]?.samples ?? [];
      log(
        `${endpoint.name}: awaited ${range([...zero, ...slow].map((s) => s.awaited))}, ` +
          `p50 ${median(zero.map((s) => s.ms)).toFixed(1)} / ${median(slow.map((s) => s.ms)).toFixed(1)} ms`,
      );
    }

    const problems = disagreements(rows, config.delay);
    for (const line of problems) log(`WARNING ${line}`);
    const dirty = git(['status', '--porcelain', '--', 'src', 'bench', 'wrangler.toml', 'package.json']) !== '';
    const command = `${Object.entries(env).filter(([k]) => k.startsWith('BENCH_LATENCY_')).map(([k, v]) => `${k}=${v} `).join('')}npm run bench:latency`;
    const markdown = [
      `# D1 round trips per request`,
      '',
      `\`${command}\`, ${startedAt.toISOString()} – ${new Date().toISOString()}, commit ${git(['rev-parse', '--short', 'HEAD']) || '(not a git checkout)'}${dirty ? ' with uncommitted changes' : ''}, ` +
        `node ${process.version}. The bundle of \`wrangler deploy --dry-run --minify\` on Miniflare with ${DATABASES} D1 databases (the measured account on the last), each behind a proxy adding ` +
        `0 or ${config.delay} ms per round trip (a batch is one); c=1, ${config.requests} timed requests per endpoint and delay after ${config.warmup} untimed, ` +
        `the two servers alternating. Times are the client's (Node fetch over loopback), in ms.`,
      '',
      formatTable(rows, config.delay),
      '',
      `Round trips awaited: the longest chain of round trips that did not overlap, among those that ended before the reply ` +
        `(from the X-Bench-D1-Awaited header; "in all" counts overlapping ones too). Effective sequential round trips: ` +
        `(p50 at ${config.delay} ms − p50 at 0 ms) / ${config.delay}. Round trips after the reply: per request, started in waitUntil ` +
        `and not awaited by the caller (at ${config.delay} ms).`,
      '',
      ...(problems.length === 0 ? [] : ['**The clock and the proxy disagree** (is D1 reached without the binding given to fetch?):', '', ...problems.map((p) => `- ${p}`), '']),
    ].join('\n');
    writeFileSync(join(OUT, 'latency.md'), markdown);
    writeFileSync(join(OUT, 'latency.json'), `${JSON.stringify({ startedAt: startedAt.toISOString(), command, config, rows }, null, 2)}\n`);
    process.stdout.write(markdown);
    log(`wrote ${OUT}/latency.md and ${OUT}/latency.json`);
  } finally {
    for (const site of sites) await site.server.dispose();
  }
}

await main();
