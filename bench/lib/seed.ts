// Seeds a persisted D1 (Miniflare's resource persistence dir) once per size: the migrations in
// drizzle/, one account, one read_write API key (only its SHA-256 stored, as the service does)
// and N scenarios of two adults and two children in the stored form, oldest first (ids 1..N).
// One row in a hundred is in a state, of a year and with a program no other row has (data.ts RARE).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/auth/api-key.ts';
import { household, prng, RARE, storedText, tokenMaker } from './data.ts';
import { applyMigrations } from './migrations.ts';
import { startServer } from './server.ts';

/** Bump when the seeded content changes, so stale seeds are rebuilt. */
const SEED_VERSION = 2;
const ROWS_PER_INSERT = 50; // ~70 KB a statement: local D1 refuses statements over 100 KB
const STATEMENTS_PER_BATCH = 20;

export interface SeedInfo {
  version: number;
  n: number;
  /** The migration files the seed was made with: a seed made before a new one is rebuilt. */
  migrations?: string;
  key: string;
  accountId: number;
  /** A token from the middle of the account's scenarios (view). */
  viewToken: string;
  /** Another one from the middle (save). */
  saveToken: string;
  /** The id of the 100th oldest scenario: starting_after for the deep page. */
  deepCursor: number;
  seconds: number;
  bytes: number;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += readFileSync(join(entry.parentPath, entry.name)).byteLength;
  }
  return total;
}

function migrationFiles(): string {
  return readdirSync('drizzle').filter((f) => f.endsWith('.sql')).sort().join(',');
}

/** The seed for `n` scenarios in `dir` (reused when it exists and matches; rebuilt otherwise). */
export async function ensureSeed(dir: string, n: number, log: (line: string) => void): Promise<SeedInfo> {
  const metaPath = `${dir}.json`;
  if (existsSync(metaPath) && existsSync(dir) && !process.env.BENCH_RESEED) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as SeedInfo;
    if (meta.version === SEED_VERSION && meta.n === n && meta.migrations === migrationFiles()) {
      log(`seed N=${n}: reusing ${dir} (seeded in ${meta.seconds.toFixed(1)} s; delete it or set BENCH_RESEED=1 to rebuild)`);
      return meta;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(metaPath, { force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  // A do-nothing Worker: the seeding talks to D1 through Miniflare's binding proxy.
  const server = await startServer({
    scriptPath: join(dir, 'seed-worker.js'),
    script: 'export default { fetch() { return new Response(null, { status: 204 }); } };',
    stateDir: dir,
    withRateLimits: false,
  });
  try {
    const db = await server.mf.getD1Database('DB');
    await applyMigrations(db);
    const now = Date.now();
    const account = await db
      .prepare('INSERT INTO accounts (name, email, created_at) VALUES (?, ?, ?) RETURNING id')
      .bind('Benchmark Household Lab', 'bench@example.com', now - 400 * 86_400_000)
      .first<{ id: number }>();
    if (!account) throw new Error('account insert returned nothing');
    const key = generateApiKey();
    await db
      .prepare('INSERT INTO api_keys (account_id, key_hash, prefix, name, scope, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .bind(account.id, await hashApiKey(key), displayPrefix(key), 'bench', 'read_write', now - 400 * 86_400_000)
      .run();

    const rand = prng(20261121 + n);
    const nextToken = tokenMaker(rand);
    // Multi-row INSERTs with literal values (our own generated data: numbers and JSON text with
    // quotes doubled), ROWS_PER_INSERT rows a statement, a D1 batch of them at a time: per-statement
    // overhead dominates seeding otherwise.
    const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
    // Spread over the last year, oldest first, so ids ascend with created_at as in real use.
    const start = now - 365 * 86_400_000;
    const step = Math.max(1, Math.floor((365 * 86_400_000) / n));
    for (let done = 0; done < n; ) {
      const batch = [];
      for (let s = 0; s < STATEMENTS_PER_BATCH && done < n; s++) {
        const values: string[] = [];
        for (let i = 0; i < ROWS_PER_INSERT && done < n; i++, done++) {
          const input = household(rand);
          // The 1 % filters of bench/filters.ts: three disjoint rows in every hundred.
          if (done % 100 === 13) input.year = RARE.year;
          if (done % 100 === 47) input.programs = [...input.programs, RARE.program];
          if (done % 100 === 71) input.state_id = RARE.stateId;
          const token = nextToken();
          const created = start + done * step + Math.floor(rand() * step);
          const version = rand() < 0.3 ? 1 + Math.floor(rand() * 4) : 1;
          const updated = version === 1 ? created : created + Math.floor(rand() * 30 * 86_400_000);
          values.push(`(${quote(token)}, ${account.id}, ${input.state_id ?? 36}, ${quote(storedText(input, token))}, ${version}, ${created}, ${updated})`);
        }
        batch.push(
          db.prepare(
            `INSERT INTO scenarios (token, account_id, state_id, scenario_data, version, created_at, updated_at) VALUES ${values.join(', ')}`,
          ),
        );
      }
      await db.batch(batch);
      if (done % 20_000 === 0 || done === n) log(`seed N=${n}: ${done} scenarios`);
    }
    const at = async (offset: number) => {
      const row = await db
        .prepare('SELECT id, token FROM scenarios WHERE account_id = ? ORDER BY id LIMIT 1 OFFSET ?')
        .bind(account.id, offset)
        .first<{ id: number; token: string }>();
      if (!row) throw new Error(`no scenario at offset ${offset}`);
      return row;
    };
    const middle = await at(Math.floor(n / 2));
    const nextToMiddle = await at(Math.floor(n / 2) + 1);
    const deep = await at(Math.min(99, n - 1));
    const info: SeedInfo = {
      migrations: migrationFiles(),
      version: SEED_VERSION,
      n,
      key,
      accountId: account.id,
      viewToken: middle.token,
      saveToken: nextToMiddle.token,
      deepCursor: deep.id,
      seconds: 0,
      bytes: 0,
    };
    await server.dispose();
    info.seconds = (performance.now() - started) / 1000;
    info.bytes = dirBytes(dir);
    writeFileSync(metaPath, `${JSON.stringify(info, null, 2)}\n`);
    log(`seed N=${n}: done in ${info.seconds.toFixed(1)} s (${(info.bytes / 1e6).toFixed(1)} MB on disk)`);
    return info;
  } catch (error) {
    await server.dispose().catch(() => undefined);
    throw error;
  }
}
