// npm run keys -- <command> [options] [--remote]
// Accounts and API keys from the command line, against the local D1 (what `npm start` serves)
// or, with --remote, the deployed database. Same query functions as the admin API.
import { parseArgs } from 'node:util';
import { CreateAccountBody, CreateKeyBody } from '../src/admin/schema.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccount, insertAccount, listAccounts } from '../src/db/accounts.ts';
import { listApiKeys, revokeApiKey } from '../src/db/api-keys.ts';
import { formatTimestamp, parseRfc3339 } from '../src/http/timestamps.ts';
import { openDatabase } from './lib/database.ts';

const USAGE = `Usage: npm run keys -- <command> [options] [--remote]

  create-account --name NAME --email EMAIL
  list-accounts
  create-key     --account ID [--name NAME] [--scope read|read_write] [--expires RFC3339]
  list-keys      --account ID
  revoke-key     --key ID

  --remote   use the deployed D1 database instead of the local one (needs wrangler login)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    account: { type: 'string' },
    key: { type: 'string' },
    scope: { type: 'string' },
    expires: { type: 'string' },
    remote: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

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

/** The admin API's body rules, so the command line cannot store what the API would refuse. */
function valid<T>(result: { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } }): T {
  if (result.success) return result.data;
  fail(result.error.issues.map((issue) => `--${issue.path.map(String).join('.').replace('expires_at', 'expires')}: ${issue.message}`).join('\n'));
}

async function main(): Promise<void> {
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const { db, dispose } = await openDatabase({ remote: values.remote ?? false });
  try {
    const now = Date.now();
    switch (command) {
      case 'create-account': {
        const { name, email } = valid(CreateAccountBody.safeParse({ name: required('name'), email: required('email') }));
        const account = await insertAccount(db, { name, email, now });
        if (!account) refuse(`An account with e-mail ${email} exists already (e-mail addresses are unique, whatever their case).`);
        console.log(JSON.stringify({ ...account, createdAt: ts(account.createdAt) }, null, 2));
        break;
      }
      case 'list-accounts': {
        const accounts = await listAccounts(db);
        console.table(accounts.map((a) => ({ id: a.id, name: a.name, email: a.email, created_at: ts(a.createdAt) })));
        break;
      }
      case 'create-key': {
        const account = await findAccount(db, id('account'));
        if (!account) refuse(`No account with id ${values.account}.`);
        const body = valid(CreateKeyBody.safeParse({ name: values.name, scope: values.scope, expires_at: values.expires }));
        const { scope } = body;
        const expiresAt = body.expires_at === undefined ? null : parseRfc3339(body.expires_at);
        if (expiresAt !== null && expiresAt <= now) fail('--expires must be a future RFC 3339 time');
        const issued = await issueApiKey(db, account.id, { name: body.name ?? null, scope, expiresAt, now });
        if (!issued) refuse(`no account ${account.id}`);
        const { key, row } = issued;
        console.log(`Key ${row.id} for ${account.email} (${scope}). It is shown this once; only its hash is stored:\n\n  ${key}\n`);
        break;
      }
      case 'list-keys': {
        const keys = await listApiKeys(db, id('account'));
        if (!keys) refuse(`no account ${id('account')}`);
        console.table(
          keys.map((k) => ({
            id: k.id,
            prefix: k.prefix,
            name: k.name,
            scope: k.scope,
            created_at: ts(k.createdAt),
            expires_at: ts(k.expiresAt),
            last_used_at: ts(k.lastUsedAt),
            revoked_at: ts(k.revokedAt),
          })),
        );
        break;
      }
      case 'revoke-key': {
        const row = await revokeApiKey(db, id('key'), now);
        if (!row) refuse(`No key with id ${values.key}.`);
        console.log(`Key ${row.id} (${row.prefix}…) revoked at ${ts(row.revokedAt)}`);
        break;
      }
      default:
        fail(`Unknown command ${command}`);
    }
  } finally {
    await dispose();
  }
}

await main();
