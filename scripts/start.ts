// npm start: check the port is free, complete .dev.vars, apply the local D1 migrations, make
// sure a development account and key exist, then serve the Worker with `wrangler dev` on
// 127.0.0.1:8787 (PORT overrides; its [build] command copies /docs' files), with the webhook vars
// of local development (DEV_VARS), and print a curl line that works with that key.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccountByEmail, insertAccount } from '../src/db/accounts.ts';
import { findKeyByHash } from '../src/db/api-keys.ts';
import { openDatabase } from './lib/database.ts';

const PORT = Number(process.env.PORT ?? 8787);
const HOST = '127.0.0.1';
const DEV_EMAIL = 'dev@example.com';
// Beside the local database, so wiping .wrangler/state resets both together.
const DEV_KEY_FILE = '.wrangler/state/dev-api-key';
// X_LOCAL_OBSERVABILITY=false: wrangler dev's local trace store (a Durable Object under
// .wrangler/state/v3/observability) records every request's full URL, query string included, so a
// credential someone put in a URL (refused by the service, but received) would stay on disk. Its
// traces are a convenience of the local explorer; the Worker's own logs say what failed.
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', X_LOCAL_OBSERVABILITY: 'false' };
// Wrangler runs on this same Node (the one the project pins), whatever PATH says.
const WRANGLER = ['node_modules/wrangler/bin/wrangler.js'];

// Local development: webhook endpoints may be on loopback (http://127.0.0.1:…), which production
// refuses, and a failed delivery is retried after 1, 2, 4… seconds instead of 5, 10, 20… minutes.
const DEV_VARS = ['WEBHOOK_ALLOW_LOOPBACK:true', 'WEBHOOK_RETRY_BASE_SECONDS:1'];

// The secrets wrangler.toml requires, each with how its random value is made; each gets its own,
// so none can be derived from another.
const SECRETS: Record<string, () => string> = {
  ADMIN_TOKEN: () => randomBytes(32).toString('base64url'),
  CHART_SIGNING_KEY: () => randomBytes(32).toString('base64url'),
  // One AES-GCM key, id "dev1" (src/webhooks/secret-box.ts).
  WEBHOOK_SECRET_KEYS: () => `dev1:${randomBytes(32).toString('base64')}`,
};

/** Adds a random value for every secret .dev.vars lacks (creating the file), keeping what is there. */
function ensureDevVars(): void {
  const existing = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : '';
  const missing = Object.keys(SECRETS).filter((name) => !new RegExp(`^\\s*(export\\s+)?${name}\\s*=\\s*\\S`, 'm').test(existing));
  if (missing.length === 0) return;
  const lines = missing.map((name) => `${name}=${SECRETS[name]!()}\n`).join('');
  if (existing === '') writeFileSync('.dev.vars', `# Local secrets for wrangler dev (git-ignored).\n${lines}`, { mode: 0o600 });
  else appendFileSync('.dev.vars', `${existing.endsWith('\n') ? '' : '\n'}${lines}`);
  console.log(`${existing === '' ? 'Wrote' : 'Added to'} .dev.vars: a random ${missing.join(' and a random ')}.`);
}

/** Whether something already answers on host:port, or the port cannot be bound there. */
async function portTaken(host: string, port: number): Promise<boolean> {
  const answers = await new Promise<boolean>((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
  if (answers) return true;
  return new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(false)));
  });
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

if (await portTaken(HOST, PORT)) {
  console.error(`Port ${PORT} on ${HOST} is already in use (another npm start?). Stop that server, or start this one elsewhere: PORT=9000 npm start`);
  process.exit(1);
}
ensureDevVars();
applyMigrations();
const key = await ensureDevKey();

const child = spawn(
  process.execPath,
  [...WRANGLER, 'dev', '--ip', HOST, '--port', String(PORT), '--local', '--show-interactive-dev-session=false', '--log-level', 'warn', ...DEV_VARS.flatMap((v) => ['--var', v])],
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
