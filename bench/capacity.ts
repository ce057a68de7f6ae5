// npm run bench:capacity: write throughput as accounts spread over more D1 databases. The
// service's deployed bundle is served with every D1 binding behind a simulated production D1
// (bench/capacity/entry.ts): each database runs one batch at a time and a batch holds it for
// BENCH_CAPACITY_STATEMENT_MS (1) per statement. For 1, 2, 4 and 8 databases, a fresh server gets
// BENCH_CAPACITY_ACCOUNTS (64) accounts through the admin API (placement spreads them evenly) and
// as many clients, one per account, each writing in a closed loop (a create, then three saves of
// it, and again) for BENCH_CAPACITY_SECONDS (10) after a warm-up. It prints writes a second, p50
// and p99 latency, how busy the simulated databases were, and the CPU of workerd (the Worker and
// local D1's SQLite, read from /proc), of this client and of the whole machine, and from those
// names the limit of each row: D1 while its databases stay busy, else the CPU. Then the bytes an
// account and a scenario (new, and with 100 revisions kept) take, and how many a 10 GB database
// holds. See bench/README.md.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { databaseOfId } from '../src/db/databases.ts';
import { bundleAdmin, bundleWithEntry } from './lib/bundle.ts';
import { edit, household } from './lib/households.ts';
import { prng } from './lib/data.ts';
import { applyMigrations } from './lib/migrations.ts';
import { BINDINGS, CLK_TCK, cpuTicks, databaseBindings, startServer } from './lib/server.ts';
import { measureMove } from './capacity/move.ts';

const OUT = 'bench/.out';
const env = process.env;
env.WRANGLER_SEND_METRICS = 'false';
env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
const config = {
  // "none": the storage figures alone.
  databases: env.BENCH_CAPACITY_DATABASES === 'none' ? [] : (env.BENCH_CAPACITY_DATABASES ?? '1,2,4,8').split(',').map(Number),
  accounts: Number(env.BENCH_CAPACITY_ACCOUNTS ?? 64),
  seconds: Number(env.BENCH_CAPACITY_SECONDS ?? 10),
  warmupSeconds: Number(env.BENCH_CAPACITY_WARMUP_SECONDS ?? 2),
  statementMs: Number(env.BENCH_CAPACITY_STATEMENT_MS ?? 1),
};
if (config.databases.some((n) => !Number.isInteger(n) || n < 1 || n > 13)) throw new Error('BENCH_CAPACITY_DATABASES: whole numbers from 1 to 13');

const log = (line: string) => process.stderr.write(`[capacity] ${line}\n`);

/** The machine's CPU time so far, in clock ticks: busy (every state but idle and iowait) and total. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - (fields[4] ?? 0), total };
}
const CORES = availableParallelism();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


/** Two adults and two children, as bench/latency.ts sends. */
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

async function call(base: string, bearer: string, method: string, path: string, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Row {
  databases: number;
  perDatabase: number[];
  writes: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMsPerWrite: number;
  /** workerd's CPU over the wall time (1 = one core). */
  cpuShare: number;
  /** This client's CPU over the wall time. */
  clientShare: number;
  /** The machine's busy share, all cores (1 = every core busy). */
  machineShare: number;
  /** The simulated databases' mean busy share (1 = always serving). */
  d1Busy: number;
}

/** Each simulated database's service time so far (ms), by binding name. */
async function d1BusyMs(base: string): Promise<Record<string, number>> {
  return (await (await fetch(`${base}/__bench/d1`)).json()) as Record<string, number>;
}

let ADMIN_WORKER: string | undefined;

async function measure(modules: string[], databases: number): Promise<Row> {
  const stateRoot = env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : OUT);
  const stateDir = join(stateRoot, `scenario-capacity-${process.pid}-${databases}`);
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const [scriptPath, ...rest] = modules;
  const server = await startServer({ scriptPath: scriptPath!, modules: rest, stateDir, databases, bindings: { BENCH_D1_STATEMENT_MS: String(config.statementMs) }, admin: ADMIN_WORKER });
  try {
    for (const name of databaseBindings(databases)) await applyMigrations(await server.mf.getD1Database(name));
    const keys: string[] = [];
    const perDatabase = Array.from({ length: databases }, () => 0);
    for (let i = 0; i < config.accounts; i++) {
      const account = await call(server.url, BINDINGS.ADMIN_TOKEN, 'POST', '/admin/accounts', { name: `Capacity ${i}`, email: `capacity-${i}@example.com` });
      if (account.status !== 201) throw new Error(`create account: ${account.status} ${JSON.stringify(account.json)}`);
      perDatabase[databaseOfId(account.json.id)]! += 1;
      const key = await call(server.url, BINDINGS.ADMIN_TOKEN, 'POST', `/admin/accounts/${account.json.id}/keys`, { name: 'capacity' });
      if (key.status !== 201) throw new Error(`create key: ${key.status}`);
      keys.push(key.json.key);
    }

    let measuring = false;
    let stopping = false;
    const latencies: number[] = [];
    let failures = 0;
    const client = async (key: string) => {
      let token = '';
      for (let i = 0; !stopping; i++) {
        const create = i % 4 === 0;
        const started = performance.now();
        const reply = create
          ? await call(server.url, key, 'POST', '/scenarios', { scenarioData: HOUSEHOLD })
          : await call(server.url, key, 'POST', '/scenarios/save', { token, scenarioData: { ...HOUSEHOLD, year: 2000 + (i % 30) } });
        const ms = performance.now() - started;
        if (reply.status !== (create ? 201 : 200)) {
          failures++;
          if (failures <= 3) log(`unexpected ${reply.status}: ${JSON.stringify(reply.json).slice(0, 200)}`);
          continue;
        }
        if (create) token = /\/scenarios\/([^/]+)$/.exec(reply.headers.get('location') ?? '')?.[1] ?? '';
        if (measuring) latencies.push(ms);
      }
    };
    const clients = keys.map((key) => client(key));
    await sleep(config.warmupSeconds * 1000);
    const ticks = cpuTicks(server.pid);
    const machine = machineTicks();
    const clientCpu = process.cpuUsage();
    const busy = await d1BusyMs(server.url);
    const started = performance.now();
    measuring = true;
    await sleep(config.seconds * 1000);
    measuring = false;
    const wallMs = performance.now() - started;
    const cpuMs = ((cpuTicks(server.pid) - ticks) / CLK_TCK) * 1000;
    const machineNow = machineTicks();
    const clientUsage = process.cpuUsage(clientCpu);
    const busyNow = await d1BusyMs(server.url);
    // Service time handed out in the window, over the window (a database's queue at the end counts
    // in it too, hence the cap).
    const d1Busy = Math.min(1, databaseBindings(databases).reduce((sum, name) => sum + ((busyNow[name] ?? 0) - (busy[name] ?? 0)), 0) / databases / wallMs);
    stopping = true;
    await Promise.all(clients);
    if (failures > 0) throw new Error(`${failures} writes failed`);
    const sorted = latencies.sort((a, b) => a - b);
    return {
      databases,
      perDatabase,
      writes: sorted.length,
      perSecond: sorted.length / (wallMs / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuMsPerWrite: cpuMs / sorted.length,
      cpuShare: cpuMs / wallMs,
      clientShare: (clientUsage.user + clientUsage.system) / 1000 / wallMs,
      machineShare: (machineNow.busy - machine.busy) / (machineNow.total - machine.total),
      d1Busy,
    };
  } finally {
    await server.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

interface Sizes {
  /** Bytes an account with one key adds (its row, its key, its directory entry). */
  account: number;
  /** Bytes a scenario adds when created: its row, revision 1 and its event. */
  created: number;
  /** Bytes a scenario holds after 99 edits: its row, the 100 revisions kept, 100 events (kept 30 days). */
  full: number;
  /** Of `full`, the 100 events' share (from the file's own pages: dbstat). */
  events: number;
  /** The same after 99 saves that each send a different household. */
  rewritten: number;
  /** What the scenario's tables and indexes hold per full scenario, by table (dbstat). */
  tables: Record<string, number>;
  /** The database's size at the end, D1's (`size_after`), and as the Worker's writes recorded it (database_sizes). */
  database: { d1: number; recorded: number | null };
}

/** Bytes in the database file per table, its indexes included (dbstat, the file's own pages). */
function bytesByTable(stateDir: string): Record<string, number> {
  const files = readdirSync(stateDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sqlite') && !f.includes('metadata'));
  const sizes: Record<string, number> = {};
  for (const file of files) {
    const db = new DatabaseSync(join(stateDir, file), { readOnly: true });
    const rows = db.prepare('select coalesce(m.tbl_name, s.name) as name, sum(s.pgsize) as bytes from dbstat s left join sqlite_schema m on m.name = s.name group by 1').all() as { name: string; bytes: number }[];
    for (const row of rows) sizes[row.name] = (sizes[row.name] ?? 0) + row.bytes;
    db.close();
  }
  return sizes;
}

/**
 * Bytes per account and per scenario, from the database file's size (D1's `size_after`, whole
 * 4 KiB pages, hence the samples) on a fresh server without the simulated delay: SIZE_ACCOUNTS
 * accounts with a key, a varied household (bench/lib/households.ts) for SIZE_SCENARIOS of them,
 * then 99 edits of SIZE_FULL of those. A second fresh server gives SIZE_REWRITTEN scenarios 99
 * saves of a different household each. The events' share, and the scenario's tables one by one,
 * come from the file's pages (SQLite's dbstat) once the server is stopped.
 */
/** Scenarios of the account the bench moves (each saved once: 2 revisions). */
const MOVE_SCENARIOS = Number(env.BENCH_MOVE_SCENARIOS ?? 1000);
const MOVE_STATEMENTS = Number(env.BENCH_MOVE_STATEMENTS ?? 100);
const SIZE_ACCOUNTS = 400;
const SIZE_SCENARIOS = 100;
const SIZE_FULL = 40;
const SIZE_REWRITTEN = 10;
const SIZE_LIMIT = 1_000_000_000;
const HISTORY_TABLES = ['scenarios', 'scenario_programs', 'scenario_revisions'];

async function measureSizes(modules: string[], rewrite: boolean): Promise<Omit<Sizes, 'rewritten'>> {
  const stateDir = join(env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : OUT), `scenario-capacity-${process.pid}-sizes`);
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const [scriptPath, ...rest] = modules;
  // DATABASE_MAX_BYTES 1 GB: the Worker records its database's size at every move of 1 MB (a
  // thousandth), so the recorded size can be shown beside D1's; nothing else here comes near it.
  const server = await startServer({ scriptPath: scriptPath!, modules: rest, stateDir, databases: 1, bindings: { BENCH_D1_STATEMENT_MS: '0', DATABASE_MAX_BYTES: String(SIZE_LIMIT) }, admin: ADMIN_WORKER });
  const full = rewrite ? SIZE_REWRITTEN : SIZE_FULL;
  let disposed = false;
  try {
    const db = await server.mf.getD1Database('DB');
    await applyMigrations(db);
    const size = async () => (await db.prepare('select 1').run()).meta.size_after as number;
    const start = await size();
    const keys: string[] = [];
    for (let i = 0; i < SIZE_ACCOUNTS; i++) {
      const account = await call(server.url, BINDINGS.ADMIN_TOKEN, 'POST', '/admin/accounts', { name: `Size ${i}`, email: `size-${i}@example.com` });
      keys.push((await call(server.url, BINDINGS.ADMIN_TOKEN, 'POST', `/admin/accounts/${account.json.id}/keys`, { name: 'size' })).json.key);
    }
    const accounts = await size();
    const rng = prng(37);
    const households = keys.slice(0, SIZE_SCENARIOS).map(() => household(rng));
    const tokens = await Promise.all(
      keys.slice(0, SIZE_SCENARIOS).map(async (key, i) => {
        const reply = await call(server.url, key, 'POST', '/scenarios', { scenarioData: households[i] });
        if (reply.status !== 201) throw new Error(`create: ${reply.status} ${JSON.stringify(reply.json)}`);
        return /\/scenarios\/([^/]+)$/.exec(reply.headers.get('location') ?? '')![1]!;
      }),
    );
    const created = await size();
    await Promise.all(
      keys.slice(0, full).map(async (key, i) => {
        const edits = prng(1000 + i);
        let data = households[i]!;
        for (let v = 2; v <= 100; v++) {
          data = rewrite ? household(edits) : edit(data, edits);
          const reply = await call(server.url, key, 'POST', '/scenarios/save', { token: tokens[i], scenarioData: data });
          if (reply.status !== 200) throw new Error(`save: ${reply.status} ${JSON.stringify(reply.json)}`);
        }
      }),
    );
    const after = await size();
    const recorded = await db.prepare('select bytes from database_sizes where database = 0').first<number>('bytes');
    await server.dispose();
    disposed = true;
    const tables = bytesByTable(stateDir);
    const eventCount = SIZE_SCENARIOS + full * 99;
    const perCreated = (created - accounts) / SIZE_SCENARIOS;
    const history = Object.fromEntries(HISTORY_TABLES.map((name) => [name, (tables[name] ?? 0) / SIZE_SCENARIOS]));
    // The tables hold SIZE_SCENARIOS rows, `full` of them with 100 revisions: per full scenario,
    // the row's share is the mean, the revisions' the growth past revision 1.
    history.scenario_revisions = (tables.scenario_revisions ?? 0) / full;
    return {
      account: (accounts - start) / SIZE_ACCOUNTS,
      created: perCreated,
      full: perCreated + (after - created) / full,
      events: ((tables.events ?? 0) / eventCount) * 100,
      tables: history,
      database: { d1: after, recorded },
    };
  } finally {
    if (!disposed) await server.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** What held a row back: D1 while its databases stay busy, else the CPU (the machine's, or workerd's one thread). */
function limit(r: Row): string {
  if (r.d1Busy >= 0.9) return 'D1';
  return r.machineShare >= 0.9 ? `CPU (machine ${(r.machineShare * 100).toFixed(0)} % busy)` : `CPU (workerd ${(r.cpuShare * 100).toFixed(0)} % of a core)`;
}

const modules = await bundleWithEntry('bench/capacity/entry.ts', join(OUT, 'capacity'));
// The accounts and keys are made, and accounts moved, through /admin: the admin API's Worker, behind ADMIN.
ADMIN_WORKER = bundleAdmin(join(OUT, 'capacity-admin')).scriptPath;
const rows: Row[] = [];
const startedAt = new Date();
for (const n of config.databases) {
  log(`${n} database${n === 1 ? '' : 's'}…`);
  rows.push(await measure(modules, n));
  const r = rows.at(-1)!;
  log(
    `  ${r.perSecond.toFixed(0)} writes/s, p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, D1 ${(r.d1Busy * 100).toFixed(0)} % busy, ` +
      `workerd ${r.cpuMsPerWrite.toFixed(2)} ms CPU/write, machine ${(r.machineShare * 100).toFixed(0)} % busy`,
  );
}

log('bytes per account and per scenario…');
const edited = await measureSizes(modules, false);
log('bytes per scenario, every save a new household…');
const rewritten = await measureSizes(modules, true);
const sizes: Sizes = { ...edited, rewritten: rewritten.full };
log(`moving an account of ${MOVE_SCENARIOS} scenarios while a client saves…`);
const moveDir = join(env.BENCH_STATE_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : OUT), `scenario-capacity-${process.pid}-move`);
rmSync(moveDir, { recursive: true, force: true });
mkdirSync(moveDir, { recursive: true });
const moveRng = prng(73);
const moved = await measureMove({ modules, stateDir: moveDir, scenarios: MOVE_SCENARIOS, statementsPerCall: MOVE_STATEMENTS, admin: ADMIN_WORKER!, household: () => household(moveRng), call }).finally(() =>
  rmSync(moveDir, { recursive: true, force: true }),
);
const GB = 1e9;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const perDatabase = (bytes: number) => Math.floor((10 * GB) / bytes);

const base = rows.find((r) => r.databases === 1)?.perSecond ?? rows[0]?.perSecond ?? 1;
const cpu = rows.reduce((sum, r) => sum + r.cpuMsPerWrite, 0) / rows.length;
if (rows.length > 0) console.log(`
\`npm run bench:capacity\`, ${startedAt.toISOString()}, node ${process.version}, ${CORES} cores (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end).
Simulated D1: one batch at a time per database, ${config.statementMs} ms per statement; ${config.accounts} accounts and clients
(closed loop: a create, then three saves of it), ${config.seconds} s measured after ${config.warmupSeconds} s of warm-up.

| databases | accounts per database | writes/s | × 1 database | p50 ms | p99 ms | D1 busy | workerd CPU ms/write | workerd CPU | client CPU | machine busy | limit |
|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
${rows
  .map(
    (r) =>
      `| ${r.databases} | ${r.perDatabase.join(' / ')} | ${r.perSecond.toFixed(0)} | ${(r.perSecond / base).toFixed(2)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ` +
      `${(r.d1Busy * 100).toFixed(0)} % | ${r.cpuMsPerWrite.toFixed(2)} | ${(r.cpuShare * 100).toFixed(0)} % | ${(r.clientShare * 100).toFixed(0)} % | ${(r.machineShare * 100).toFixed(0)} % | ${limit(r)} |`,
  )
  .join('\n')}

D1 busy: the simulated databases' mean share of the time spent serving (100 % = each one always busy, its
throughput at its ceiling). workerd and client CPU: shares of one core; machine busy: of all ${CORES} cores, every
process on it. workerd's CPU per write (the Worker, and local D1's SQLite in the same process) averages
${cpu.toFixed(2)} ms: one core serves about ${(1000 / cpu).toFixed(0)} writes/s. A row whose databases are not kept busy is held back by
the CPU: the Worker's and local SQLite's on this machine, not D1.
`);
console.log(`
Storage (the database file's growth, D1's \`size_after\`: ${SIZE_ACCOUNTS} accounts with a key, ${SIZE_SCENARIOS} varied households (bench/lib/households.ts),
then 99 edits of ${SIZE_FULL} of them; the events' share from the file's pages):

| what | bytes | in one 10 GB database | in 8 | in 13 (what a key can name) |
|---|---:|---:|---:|---:|
${[
  ['an account with a key', sizes.account],
  ['a scenario, just created (and its event)', sizes.created],
  ['a scenario with 100 revisions kept, events apart', sizes.full - sizes.events],
  ['the same with its 100 events (kept 30 days)', sizes.full],
  ['a scenario whose 99 saves each sent a new household (and 100 events)', sizes.rewritten],
]
  .map(([what, bytes]) => `| ${what} | ${kib(bytes as number)} | ${perDatabase(bytes as number).toLocaleString('en-US')} | ${(8 * perDatabase(bytes as number)).toLocaleString('en-US')} | ${(13 * perDatabase(bytes as number)).toLocaleString('en-US')} |`)
  .join('\n')}

Of a scenario with 100 revisions, by table (its indexes included; the file's pages): ${Object.entries(sizes.tables)
  .map(([name, bytes]) => `${name} ${kib(bytes)}`)
  .join(', ')}; its 100 events ${kib(sizes.events)}.

The database's size at the end, as D1 reports it (\`size_after\`) and as the Worker recorded it from its writes' replies
(database_sizes; recorded at each move of ${kib(SIZE_LIMIT / 1000)}, a thousandth of DATABASE_MAX_BYTES, here ${SIZE_LIMIT / 1e9} GB):
${[edited, rewritten].map((m, i) => `${i === 0 ? 'edited' : 'rewritten'}: D1 ${kib(m.database.d1)}, recorded ${m.database.recorded === null ? 'none' : kib(m.database.recorded)}`).join('; ')}.
`);
const per1000 = 1000 / moved.scenarios;
console.log(`
Moving an account (POST /admin/accounts/{id}/move until done, ${MOVE_STATEMENTS} statements a call, DB to DB_3, on local D1 with no simulated service time) of
${moved.scenarios} scenarios saved once (${Object.values(moved.rows).reduce((a, b) => a + b, 0).toLocaleString('en-US')} rows in all) while one client saves them in a closed loop:

| per 1,000 scenarios | moved in | round trips | admin calls | write pause (service) | its round trips | longest gap between accepted saves (client) | saves 503 / accepted |
|---|---:|---:|---:|---:|---:|---:|---:|
| measured | ${(moved.seconds * per1000).toFixed(1)} s | ${Math.round(moved.roundTrips * per1000)} | ${Math.ceil(moved.calls * per1000)} | ${moved.pauseMs} ms | ${Math.round(moved.pauseRoundTrips * per1000)} | ${moved.longestGapMs.toFixed(0)} ms | ${moved.refusedWrites} / ${moved.acceptedWrites} |

Production's D1 is further away than local D1: the move costs about its round trips times D1's round trip, e.g.
${[5, 20, 50].map((ms) => `${((moved.roundTrips * per1000 * ms) / 1000).toFixed(1)} s at ${ms} ms`).join(', ')} per 1,000 scenarios;
the write pause about its own round trips times the same: ${[5, 20, 50].map((ms) => `${((moved.pauseRoundTrips * per1000 * ms) / 1000).toFixed(1)} s at ${ms} ms`).join(', ')}.
`);
