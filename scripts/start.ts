// npm start: check the port is free, complete .dev.vars (and dashboard/.dev.vars, admin/.dev.vars),
// apply the local D1 migrations, make sure a development account and key exist, then serve the API
// Worker, the dashboard Worker (/dashboard, dashboard/wrangler.toml) and the admin API's Worker
// (/admin, admin/wrangler.toml) with one `wrangler dev` on 127.0.0.1:8787
// (PORT overrides; its [build] command copies /docs' files), with the webhook vars of local
// development (DEV_VARS), print a curl line that works with that key, and print the link of each
// sign-in e-mail the dashboard sends.
//
// What it prints is for a person: a few lines, then the Worker's own log lines (src/http/log.ts)
// as they come. Wrangler's chatter (migration tables, banners, the bindings table, a line per
// request) is kept back: the migrations' output is shown only if they fail, and wrangler's
// start-up output only if the server does not come up. `npm start -- --verbose` shows it all.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { createAccount } from '../src/accounts/create.ts';
import { apiKeyDatabase, hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccountByEmail } from '../src/db/accounts.ts';
import { findKeyByHash } from '../src/db/api-keys.ts';
import { databaseOfId } from '../src/db/databases.ts';
import { databaseOfEmail } from '../src/db/directory.ts';
import { openDatabase } from './lib/database.ts';
import { SIGN_IN_EMAILS, watchSignInEmails } from './lib/sign-in-emails.ts';

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
const VERBOSE = process.argv.slice(2).includes('--verbose');
// Wrangler runs on this same Node (the one the project pins), whatever PATH says.
const WRANGLER = ['node_modules/wrangler/bin/wrangler.js'];

// Local development: webhook endpoints may be on loopback (http://127.0.0.1:…), which production
// refuses, and a failed delivery is retried after 1, 2, 4… seconds instead of 5, 10, 20… minutes.
// PUBLIC_ORIGIN is this server's own URL: links handed out (sign-in, share links) point here. It
// names localhost, not 127.0.0.1 (where wrangler listens): it is also the passkeys' relying party,
// and WebAuthn refuses an IP address as one.
const ORIGIN = `http://localhost:${PORT}`;
const DEV_VARS = ['WEBHOOK_ALLOW_LOOPBACK:true', 'WEBHOOK_RETRY_BASE_SECONDS:1', `PUBLIC_ORIGIN:${ORIGIN}`];

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

// The other Workers' local settings. wrangler dev gives --var to the first config only, and reads
// each Worker's .dev.vars beside its wrangler.toml, so these go in dashboard/.dev.vars and
// admin/.dev.vars (git-ignored); a value there already is kept, except the secrets each shares with
// the API, which follow .dev.vars, and `always`. The dashboard: any e-mail can sign up, endpoints
// may be on loopback, and endpoint secrets are sealed with the API's keys. The admin API: the API's
// admin token.
const WORKER_DEV_VARS: Record<string, { label: string; defaults: Record<string, string>; shared: string[]; always: Record<string, string> }> = {
  dashboard: {
    label: 'the dashboard Worker',
    defaults: { DASHBOARD_SIGNUP: 'open', WEBHOOK_ALLOW_LOOPBACK: 'true' },
    shared: ['WEBHOOK_SECRET_KEYS'],
    // Always this server's URL (PORT may differ from the last run's).
    always: { PUBLIC_ORIGIN: ORIGIN },
  },
  admin: { label: "the admin API's Worker", defaults: {}, shared: ['ADMIN_TOKEN'], always: {} },
};

function devVar(text: string, name: string): string | undefined {
  return new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=\\s*(\\S.*)$`, 'm').exec(text)?.[1]?.trim();
}

/** Writes `<dir>/.dev.vars`: its defaults unless set there, the shared secrets as .dev.vars has them, other lines kept. */
function ensureWorkerDevVars(dir: string): void {
  const { label, defaults, shared, always } = WORKER_DEV_VARS[dir]!;
  const file = `${dir}/.dev.vars`;
  const api = readFileSync('.dev.vars', 'utf8');
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults)) values[name] = devVar(existing, name) ?? value;
  for (const name of shared) values[name] = devVar(api, name) ?? '';
  Object.assign(values, always);
  const others = existing.split('\n').filter((line) => /^\s*[^#\s]/.test(line) && !(/^\s*(?:export\s+)?([A-Z0-9_]+)/.exec(line)?.[1]! in values));
  const lines = [`# Local settings of ${label} for wrangler dev (git-ignored; kept by npm start).`, ...others];
  const text = `${[...lines, ...Object.entries(values).map(([name, value]) => `${name}=${value}`)].join('\n')}\n`;
  if (text !== existing) writeFileSync(file, text, { mode: 0o600 });
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

/** Applies the migrations to every local database wrangler.toml lists (scripts/migrate.ts); its
 * report is shown only when they fail. */
function applyMigrations(): void {
  const result = spawnSync(process.execPath, ['scripts/run.mjs', 'scripts/migrate.ts'], {
    stdio: ['ignore', VERBOSE ? 'inherit' : 'pipe', VERBOSE ? 'inherit' : 'pipe'],
    encoding: 'utf8',
    env,
  });
  if (result.status !== 0) {
    if (!VERBOSE) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    console.error(`Applying the migrations in drizzle/ to the local D1 databases failed (${result.error?.message ?? `exit code ${result.status}`}).`);
    process.exit(result.status || 1);
  }
  const applied = [...(result.stdout ?? '').matchAll(/About to apply (\d+) migration/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  if (applied) console.log(`Applied ${applied} migration${applied === 1 ? '' : 's'} to the local D1 databases (.wrangler/state).`);
}

/** The saved development key if it still works, else a new one (and the account when missing). */
async function ensureDevKey(): Promise<string> {
  // Wrangler's platform proxy reads its log level from the environment when it logs: warnings only
  // ("Using secrets defined in .dev.vars" is info), unless the developer asked for more.
  if (!VERBOSE) process.env.WRANGLER_LOG ??= 'warn';
  const { db, databases, dispose } = await openDatabase({ remote: false });
  try {
    const saved = existsSync(DEV_KEY_FILE) ? readFileSync(DEV_KEY_FILE, 'utf8').trim() : '';
    const savedOn = databases[apiKeyDatabase(saved) ?? -1];
    if (saved && savedOn) {
      const found = await findKeyByHash(savedOn, await hashApiKey(saved));
      if (found && found.revokedAt === null && (found.expiresAt === null || found.expiresAt > Date.now())) return saved;
    }
    const now = Date.now();
    // The directory (in the first database) says which database holds the account of an address:
    // after `keys -- move-account` that is no longer the one its id was given out by.
    const held = await databaseOfEmail(db, DEV_EMAIL);
    const holder = held === null ? undefined : databases[held];
    const found = holder ? await findAccountByEmail(holder, DEV_EMAIL) : null;
    const account = found ?? (await createAccount(databases, { name: 'Local Developer', email: DEV_EMAIL, now }));
    if (!account) throw new Error('could not create the development account');
    const database = found ? held! : databaseOfId(account.id);
    const issued = await issueApiKey(databases[database]!, account.id, { name: 'development', scope: 'read_write', expiresAt: null, now, database });
    if (!issued) throw new Error('could not create the development key');
    const { key } = issued;
    mkdirSync('.wrangler/state', { recursive: true });
    writeFileSync(DEV_KEY_FILE, `${key}\n`, { mode: 0o600 });
    console.log(found ? `Issued a new key for the development account ${DEV_EMAIL}.` : `Seeded the development account ${DEV_EMAIL} and a key.`);
    return key;
  } finally {
    await dispose();
  }
}

async function waitUntilServing(url: string, child: ReturnType<typeof spawn>, gaveUp: () => boolean): Promise<boolean> {
  for (let i = 0; i < 600 && child.exitCode === null && !gaveUp(); i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

// Wrangler's own lines at its `log` level, the level that shows the Worker's console.log lines.
// Everything else (the Worker's log lines, warnings, errors, "Reloading local server…") is passed on.
const CHATTER = [
  /^\[wrangler:info\] /, // "Ready on …", and a line per request or queue batch
  /^\s*⛅️ wrangler /,
  /^─+$/,
  /^\[custom build\] Running: /,
  /^Using (secrets|vars) defined in /,
  /^⎔ (Starting local server|Connection status updated)/,
  /^Service bindings, Durable Object bindings, and Tail consumers connect to /, // after each Worker's bindings table
  /^❓ Your types might be out of date/, // worker-configuration.d.ts is the API's alone (dashboard/ and admin/wrangler.toml are typed by hand)
];
// Blocks: the bindings table (to the next blank line), and the warning that crons do not run by
// themselves locally (its indented lines; the README says how to run them).
const BINDINGS_TABLE = /^(Your Worker|[\w-]+) has access to the following bindings:/;
const CRON_WARNING = /Scheduled Workers are not automatically triggered/;
const ANSI = /\u001b\[[0-9;]*m/g;
// With two configs wrangler 4.155 prefixes each console.log line with the Worker's name, but its
// custom-build path ([build] command) leaves that name out: every line began "[undefined] ".
const UNNAMED_PREFIX = /^(?:\u001b\[[0-9;]*m)*\[undefined\](?:\u001b\[[0-9;]*m)* /;
// What workerd says (through miniflare) when it cannot bind the port.
const ADDRESS_IN_USE = /Address already in use/;

/**
 * Wrangler's output, line by line, without its chatter. Until the server answers, lines are held
 * back: then they go through the same filter (warnings and errors are kept), or, if it never
 * answers, they are printed as they are.
 */
function relay(child: ReturnType<typeof spawn>, onAddressInUse: () => void): { ready: () => void; dumpHeld: () => void } {
  let serving = false;
  let block: 'table' | 'warning' | null = null;
  const held: Array<[NodeJS.WriteStream, string]> = [];
  const pass = (out: NodeJS.WriteStream, line: string) => {
    const text = line.replace(ANSI, '');
    const blank = text.trim() === '';
    if (block === 'table') {
      if (blank) block = null;
      return;
    }
    if (block === 'warning') {
      if (blank || /^\s/.test(text)) return;
      block = null;
    }
    if (BINDINGS_TABLE.test(text)) block = 'table';
    else if (CRON_WARNING.test(text)) block = 'warning';
    else if (!blank && !CHATTER.some((re) => re.test(text))) out.write(`${line.replace(UNNAMED_PREFIX, '')}\n`);
  };
  const onLine = (out: NodeJS.WriteStream) => (line: string) => {
    if (ADDRESS_IN_USE.test(line)) onAddressInUse();
    if (VERBOSE) out.write(`${line}\n`);
    else if (serving) pass(out, line);
    else held.push([out, line]);
  };
  createInterface({ input: child.stdout! }).on('line', onLine(process.stdout));
  createInterface({ input: child.stderr! }).on('line', onLine(process.stderr));
  return {
    ready: () => {
      serving = true;
      for (const [out, line] of held.splice(0)) pass(out, line);
    },
    dumpHeld: () => {
      for (const [out, line] of held.splice(0)) out.write(`${line}\n`);
    },
  };
}

const PORT_TAKEN = `Port ${PORT} on ${HOST} is already in use (another npm start?). Stop that server, or start this one elsewhere: PORT=9000 npm start`;
if (await portTaken(HOST, PORT)) {
  console.error(PORT_TAKEN);
  process.exit(1);
}
ensureDevVars();
ensureWorkerDevVars('dashboard');
ensureWorkerDevVars('admin');
applyMigrations();
const key = await ensureDevKey();
// Again: the migrations and the key took a while, and another server may have started meanwhile.
if (await portTaken(HOST, PORT)) {
  console.error(PORT_TAKEN);
  process.exit(1);
}

const child = spawn(
  process.execPath,
  // `log` is the level at which wrangler passes on the Worker's console.log lines (console.error
  // ones already show at `warn`); relay() drops what wrangler itself says at that level.
  [...WRANGLER, 'dev', '-c', 'wrangler.toml', '-c', 'dashboard/wrangler.toml', '-c', 'admin/wrangler.toml', '--ip', HOST, '--port', String(PORT), '--local', '--show-interactive-dev-session=false', '--log-level', 'log', ...DEV_VARS.flatMap((v) => ['--var', v])],
  { stdio: ['ignore', 'pipe', 'pipe'], env },
);
// Taken between the last check and wrangler binding it (wrangler builds first): what answers
// there is another server, so stop rather than wait for it, and say so in our own words.
let addressInUse = false;
const output = relay(child, () => {
  if (addressInUse) return;
  addressInUse = true;
  child.kill('SIGTERM');
});
let failed = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
// 'close', not 'exit': the last lines of its output have been read by then.
child.on('close', (code) => {
  output.dumpHeld();
  if (addressInUse) {
    console.error(`\nPort ${PORT} on ${HOST} was taken by another program while the server was starting (it was free when npm start checked). Stop that program, or start this one elsewhere: PORT=9000 npm start`);
    process.exit(1);
  }
  process.exit(failed ? 1 : (code ?? 0));
});

const base = `http://${HOST}:${PORT}`;
if (await waitUntilServing(`${base}/openapi.json`, child, () => addressInUse)) {
  output.ready();
  console.log(`
Scenario Service on ${base}
  API reference: ${base}/docs  (OpenAPI document: ${base}/openapi.json)
Development API key: ${key}

  curl -s -H "Authorization: Bearer ${key}" ${base}/me

Dashboard (Developers section): ${ORIGIN}/dashboard
  Sign in with any e-mail address: no mail leaves this machine. Each sign-in e-mail is saved
  under ${SIGN_IN_EMAILS}/, and its link is printed here as "Sign-in e-mail to …".

The Workers' log lines follow (one JSON line per failed request). Ctrl-C stops the server.
`);
  watchSignInEmails(SIGN_IN_EMAILS, (to, link) => console.log(`${link.includes('/invitations/') ? 'Invitation' : 'Sign-in'} e-mail to ${to}: ${link}`));
} else if (child.exitCode === null && !addressInUse) {
  failed = true;
  output.dumpHeld();
  console.error(`The server did not answer on ${base} within two minutes; wrangler's output is above.`);
  child.kill('SIGTERM');
}
