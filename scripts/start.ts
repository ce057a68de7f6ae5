// npm start: apply the local D1 migrations, make sure a development account and key exist,
// then serve the Worker with `wrangler dev` on 127.0.0.1:8787 (PORT overrides) and print a
// curl line that works with that key.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccountByEmail, insertAccount } from '../src/db/accounts.ts';
import { findKeyByHash } from '../src/db/api-keys.ts';
import { copyDocsAssets } from './docs-assets.ts';
import { openDatabase } from './lib/database.ts';

const PORT = Number(process.env.PORT ?? 8787);
const HOST = '127.0.0.1';
const DEV_EMAIL = 'dev@example.com';
// Beside the local database, so wiping .wrangler/state resets both together.
const DEV_KEY_FILE = '.wrangler/state/dev-api-key';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' };
// Wrangler runs on this same Node (the one the project pins), whatever PATH says.
const WRANGLER = ['node_modules/wrangler/bin/wrangler.js'];

function ensureDevVars(): void {
  if (existsSync('.dev.vars')) return;
  const secret = () => randomBytes(32).toString('base64url');
  writeFileSync('.dev.vars', `# Local secrets for wrangler dev (git-ignored).\nADMIN_TOKEN=${secret()}\nCHART_SIGNING_KEY=${secret()}\n`, { mode: 0o600 });
  console.log('Wrote .dev.vars with a random ADMIN_TOKEN and CHART_SIGNING_KEY.');
}

function applyMigrations(): void {
  // stdin closed: wrangler then applies without asking for confirmation.
  const result = spawnSync(process.execPath, [...WRANGLER, 'd1', 'migrations', 'apply', 'DB', '--local'], { stdio: ['ignore', 'inherit', 'inherit'], env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** The saved development key if it still works, else a new one (and the account when missing). */
async function ensureDevKey(): Promise<string> {
  const { db, dispose } = await openDatabase({ remote: false });
  try {
    const saved = existsSync(DEV_KEY_FILE) ? readFileSync(DEV_KEY_FILE, 'utf8').trim() : '';
    if (saved) {
      const found = await findKeyByHash(db, await hashApiKey(saved));
      if (found && found.revokedAt === null && (found.expiresAt === null || found.expiresAt > Date.now())) return saved;
    }
    const now = Date.now();
    const account =
      (await findAccountByEmail(db, DEV_EMAIL)) ?? (await insertAccount(db, { name: 'Local Developer', email: DEV_EMAIL, now }));
    if (!account) throw new Error('could not create the development account');
    const issued = await issueApiKey(db, account.id, { name: 'development', scope: 'read_write', expiresAt: null, now });
    if (!issued) throw new Error('could not create the development key');
    const { key } = issued;
    mkdirSync('.wrangler/state', { recursive: true });
    writeFileSync(DEV_KEY_FILE, `${key}\n`, { mode: 0o600 });
    console.log(`Seeded the development account ${DEV_EMAIL} and a key.`);
    return key;
  } finally {
    await dispose();
  }
}

async function waitUntilServing(url: string, child: ReturnType<typeof spawn>): Promise<boolean> {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

ensureDevVars();
copyDocsAssets();
applyMigrations();
const key = await ensureDevKey();

const child = spawn(
  process.execPath,
  [...WRANGLER, 'dev', '--ip', HOST, '--port', String(PORT), '--local', '--show-interactive-dev-session=false', '--log-level', 'warn'],
  { stdio: ['ignore', 'inherit', 'inherit'], env },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));

const base = `http://${HOST}:${PORT}`;
if (await waitUntilServing(`${base}/openapi.json`, child)) {
  console.log(`
Scenario Service on ${base}  (OpenAPI: ${base}/openapi.json)
Development API key: ${key}

  curl -s -H "Authorization: Bearer ${key}" ${base}/me
`);
}
