// npm run keys -- <command> [options] [--remote]
// Accounts and API keys from the command line, against the local D1 (what `npm start` serves)
// or, with --remote, the deployed database. Same query functions as the admin API, and what it
// prints has the admin API's field names (snake_case): an account or a key as JSON, lists as tables.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { experimental_readRawConfig } from 'wrangler';
import { CreateAccountBody, CreateKeyBody, MOVE_STATEMENTS_MAX, MoveAccountBody, RollKeyBody, SetApiVersionBody } from '../admin/src/schema.ts';
import { moveAccount, MoveRefusedError, moveReportJson, type MoveReport } from '../src/moves/mover.ts';
import { issueApiKey, mintApiKey } from '../src/auth/issue-key.ts';
import { createAccount } from '../src/accounts/create.ts';
import { findAccount, listAccounts, setAccountApiVersion } from '../src/db/accounts.ts';
import type { Account } from '../src/db/schema.ts';
import { readConfig } from '../src/env.ts';
import { databaseIndex, databaseName, databaseOfId } from '../src/db/databases.ts';
import { accountMovedTo, keyMovedTo } from '../src/db/moves.ts';
import { listApiKeys, revokeApiKey, rollApiKey } from '../src/db/api-keys.ts';
import { formatTimestamp, parseRfc3339 } from '../src/http/timestamps.ts';
import { ApiError } from '../src/http/problem.ts';
import type { ApiKey } from '../src/db/schema.ts';
import { openDatabase } from './lib/database.ts';

// Wrangler's platform proxy logs at info level ("Using secrets defined in .dev.vars"); warnings
// and errors only, unless WRANGLER_LOG says otherwise.
process.env.WRANGLER_LOG ??= 'warn';

const USAGE = `Usage: npm run keys -- <command> [options] [--remote]

  create-account --name NAME --email EMAIL
  list-accounts
  create-key     --account ID [--name NAME] [--scope read|read_write] [--expires RFC3339]
  list-keys      --account ID
  revoke-key     --key ID
  roll-key       --key ID [--expires-in SECONDS]
                 a new key like key ID; the old one works SECONDS more (default 86400, 0 = stops now)
  set-api-version --account ID --api-version VERSION
                 pins the account to an API version (GET /api_versions lists them)
  move-account   --account ID --to DB_3
                 moves the account whole to that database (wrangler.toml's binding name) while it
                 keeps working; run it again after a failure and it finishes the move

  --remote   use the deployed D1 database instead of the local one (needs wrangler login)`;

// A malformed command line (an option without its value, one not listed) is told plainly, with the usage.
function parsedArgs<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    fail(error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error));
  }
}

const { values, positionals } = parsedArgs(() =>
  parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      scope: { type: 'string' },
      expires: { type: 'string' },
      'expires-in': { type: 'string' },
      'api-version': { type: 'string' },
      to: { type: 'string' },
      remote: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }),
);

/** A malformed command line: the message and the usage. */
function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

/** A well-formed command the data refuses (an e-mail taken, an unknown id): the message alone. */
function refuse(message: string): never {
  console.error(message);
  process.exit(1);
}

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') fail(`--${name} is required`);
  return value;
}

function id(name: 'account' | 'key'): number {
  const text = required(name);
  if (!/^[1-9][0-9]*$/.test(text)) fail(`--${name} must be a positive integer`);
  return Number(text);
}

const ts = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));

/** A key as the admin API lists it: never the key itself or its hash. */
/** An account as the admin API shows it. */
function accountFields(a: Account) {
  return { id: a.id, name: a.name, email: a.email, created_at: ts(a.createdAt), api_version: a.apiVersion };
}

function keyFields(k: ApiKey) {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    scope: k.scope,
    created_at: ts(k.createdAt),
    expires_at: ts(k.expiresAt),
    last_used_at: ts(k.lastUsedAt),
    revoked_at: ts(k.revokedAt),
  };
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/** The admin API's body rules, so the command line cannot store what the API would refuse. */
function valid<T>(result: { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } }): T {
  if (result.success) return result.data;
  fail(result.error.issues.map((issue) => `--${issue.path.map(String).join('.').replace('expires_at', 'expires')}: ${issue.message}`).join('\n'));
}

/** A local setting `npm start` wrote (`.dev.vars`, `dashboard/.dev.vars`). */
const devVar = (file: string, name: string) => (existsSync(file) ? new RegExp(`^${name}=(.*)$`, 'm').exec(readFileSync(file, 'utf8'))?.[1]?.trim() : undefined);

/**
 * Moves the account through the admin API of the `npm start` serving locally (on PORT, else the
 * port of the origin npm start last wrote, else 8787), calling it until done: the report, or null
 * when nothing serves there (the CLI then moves it itself).
 */
async function moveThroughLocalServer(accountId: number, to: string): Promise<unknown> {
  const token = devVar('.dev.vars', 'ADMIN_TOKEN');
  if (!token) return null;
  const origin = devVar('dashboard/.dev.vars', 'PUBLIC_ORIGIN');
  const port = process.env.PORT ?? (origin ? new URL(origin).port : '') ?? '8787';
  const url = `http://127.0.0.1:${port || 8787}/admin/accounts/${accountId}/move`;
  for (;;) {
    const reply = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ to }) }).catch(() => null);
    if (!reply) return null;
    const body = (await reply.json()) as { done?: boolean; phase?: string; round_trips?: number; detail?: string };
    if (reply.status !== 200) refuse(body.detail ?? `The move failed: ${reply.status}`);
    console.error(`${body.phase}${body.done ? '' : '…'} (${body.round_trips} round trips, through npm start)`);
    if (body.done) return body;
  }
}

async function main(): Promise<void> {
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const { databases, dispose } = await openDatabase({ remote: values.remote ?? false });
  // Accounts and keys are on the database their id names (src/db/databases.ts); an id of no bound database is unknown.
  const on = (id: number) => databases[databaseOfId(id)] ?? refuse(`No database holds id ${id}.`);
  // An account moved away from the database its id names is where that database's forwarding says (src/moves/).
  const homeOf = async (id: number, kind: 'account' | 'key'): Promise<number> => {
    const movedTo = await (kind === 'account' ? accountMovedTo : keyMovedTo)(on(id), id);
    return movedTo ?? databaseOfId(id);
  };
  const at = async (id: number, kind: 'account' | 'key') => databases[await homeOf(id, kind)] ?? refuse(`No database holds id ${id}.`);
  try {
    const now = Date.now();
    switch (command) {
      case 'create-account': {
        const { name, email } = valid(CreateAccountBody.safeParse({ name: required('name'), email: required('email') }));
        // New accounts are pinned to wrangler.toml's DEFAULT_API_VERSION, as the admin API pins them.
        const { rawConfig } = experimental_readRawConfig({ config: 'wrangler.toml' });
        const { defaultApiVersion: apiVersion, databaseMaxBytes: maxBytes } = readConfig((rawConfig.vars ?? {}) as Record<string, unknown>);
        // Placed by room as the admin API places it; every database past 80 %: refused (the 507's words).
        const account = await createAccount(databases, { name, email, now, apiVersion, maxBytes }).catch((error: unknown) =>
          error instanceof ApiError && error.code === 'insufficient_storage' ? refuse(error.message) : Promise.reject(error),
        );
        if (!account) refuse(`An account with e-mail ${email} exists already (e-mail addresses are unique, whatever their case).`);
        print(accountFields(account));
        break;
      }
      case 'list-accounts': {
        const accounts = (await Promise.all(databases.map((db) => listAccounts(db)))).flat();
        console.table(accounts.map(accountFields));
        break;
      }
      case 'set-api-version': {
        const { api_version: version } = valid(SetApiVersionBody.safeParse({ api_version: required('api-version') }));
        const account = await setAccountApiVersion(await at(id('account'), 'account'), { id: id('account'), version, now });
        if (!account) refuse(`No account with id ${values.account}.`);
        print(accountFields(account));
        break;
      }
      case 'create-key': {
        const account = await findAccount(await at(id('account'), 'account'), id('account'));
        if (!account) refuse(`No account with id ${values.account}.`);
        const body = valid(CreateKeyBody.safeParse({ name: values.name, scope: values.scope, expires_at: values.expires }));
        const { scope } = body;
        const expiresAt = body.expires_at === undefined ? null : parseRfc3339(body.expires_at);
        if (expiresAt !== null && expiresAt <= now) fail('--expires must be a future RFC 3339 time');
        const issued = await issueApiKey(await at(account.id, 'account'), account.id, { name: body.name ?? null, scope, expiresAt, now, database: await homeOf(account.id, 'account') });
        if (!issued) refuse(`no account ${account.id}`);
        const { key, row } = issued;
        // The admin API's 201 body; the note goes to stderr, so stdout stays one JSON document.
        const { last_used_at: _used, revoked_at: _revoked, ...created } = keyFields(row);
        print({ ...created, key });
        console.error(`The key of ${account.email} is shown this once; only its hash is stored.`);
        break;
      }
      case 'list-keys': {
        const keys = await listApiKeys(await at(id('account'), 'account'), id('account'));
        if (!keys) refuse(`no account ${id('account')}`);
        console.table(keys.map(keyFields));
        break;
      }
      case 'revoke-key': {
        const row = await revokeApiKey(await at(id('key'), 'key'), id('key'), now);
        if (!row) refuse(`No key with id ${values.key}.`);
        // As the admin API answers a revoke: the key, with its (first) revoked_at.
        print(keyFields(row));
        break;
      }
      case 'roll-key': {
        const seconds = values['expires-in'];
        if (seconds !== undefined && !/^[0-9]+$/.test(seconds)) fail('--expires-in must be a whole number of seconds');
        const body = valid(RollKeyBody.safeParse(seconds === undefined ? {} : { expires_in: Number(seconds) }));
        const { key, ...minted } = await mintApiKey(await homeOf(id('key'), 'key'));
        const graceUntil = now + body.expires_in * 1000;
        const row = await rollApiKey(await at(id('key'), 'key'), { keyId: id('key'), ...minted, now, graceUntil });
        if (!row) refuse(`No live key with id ${values.key} (unknown, revoked or expired).`);
        // The admin API's 201 body for a roll; the note goes to stderr.
        const { last_used_at: _used, revoked_at: _revoked, ...created } = keyFields(row);
        print({ ...created, key });
        console.error(`Key ${values.key} stops working at ${formatTimestamp(graceUntil)} (or earlier, if it was to expire sooner). The new key is shown this once.`);
        break;
      }
      case 'move-account': {
        const { to: name } = valid(MoveAccountBody.safeParse({ to: required('to') }));
        const to = databaseIndex(name)!;
        if (!databases[to]) refuse(`No database ${name} is bound in wrangler.toml.`);
        // Locally, while `npm start` serves, the move goes through its admin API: two processes
        // writing the same local SQLite files would lock each other out (SQLITE_BUSY).
        const served = values.remote ? null : await moveThroughLocalServer(id('account'), name);
        if (served) {
          print(served);
          break;
        }
        // In steps, as the admin API takes them, each reported on stderr; stdout gets the last report.
        let report: MoveReport;
        try {
          do {
            report = await moveAccount(databases, { accountId: id('account'), to, budget: MOVE_STATEMENTS_MAX });
            console.error(`${report.phase}${report.done ? '' : '…'} (${report.roundTrips} round trips)`);
          } while (!report.done);
        } catch (error) {
          if (error instanceof MoveRefusedError) refuse(error.message);
          throw error;
        }
        print(moveReportJson(report));
        break;
      }
      default:
        fail(`Unknown command ${command}`);
    }
  } catch (error) {
    // wrangler dev holds the same local SQLite files: a write at the same moment as one of its own is refused.
    if (!values.remote && /SQLITE_BUSY|database is locked/.test(String(error instanceof Error ? `${error.message} ${String(error.cause)}` : error))) {
      refuse('The local database was busy (npm start was writing to it at the same moment); run the command again.');
    }
    throw error;
  } finally {
    await dispose();
  }
}

await main();
