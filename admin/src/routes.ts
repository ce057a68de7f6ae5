// The admin API: accounts, and their keys (created, listed, rolled, revoked). The dashboard
// (dashboard/src/) makes the same changes for a signed-in account through its own session.
// Guarded by ADMIN_TOKEN; API keys are not accepted here.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../../src/http/zod-openapi-runtime.ts';
import type { Context } from 'hono';
import { requireAdmin } from './guard.ts';
import { issueApiKey, mintApiKey } from '../../src/auth/issue-key.ts';
import { createAccount, NO_ROOM } from '../../src/accounts/create.ts';
import { listApiKeys, revokeApiKey, rollApiKey } from '../../src/db/api-keys.ts';
import { databaseIndex, databaseName, databaseOfId } from '../../src/db/databases.ts';
import { accountMovedTo, keyMovedTo } from '../../src/db/moves.ts';
import type { ApiKey } from '../../src/db/schema.ts';
import type { Session } from '../../src/db/statement.ts';
import { readConfig, readDatabases, type AppEnv } from '../../src/env.ts';
import { useDatabase } from '../../src/http/middleware.ts';
import { documented, headers, jsonContent, problemResponses } from '../../src/http/openapi.ts';
import { idSchema, int, TimestampSchema } from '../../src/http/scalars.ts';
import { ApiError } from '../../src/http/problem.ts';
import { formatTimestamp, parseRfc3339 } from '../../src/http/timestamps.ts';
import { strictUtf8JsonBody } from '../../src/http/body.ts';
import { noQueryParameters } from '../../src/http/query.ts';
import { validationHook } from '../../src/http/validation.ts';
import { CreateAccountBody, CreateKeyBody, KEY_NAME_MAX, MoveAccountBody, RollKeyBody, SetApiVersionBody } from './schema.ts';
import { ACCOUNT_NAME_MAX, EMAIL_MAX } from '../../src/accounts/limits.ts';
import { setAccountApiVersion } from '../../src/db/accounts.ts';
import type { Account } from '../../src/db/schema.ts';
import { API_VERSIONS } from '../../src/api-versions.ts';

const Timestamp = TimestampSchema;
const IdParam = (name: string) =>
  z.object({
    id: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/)
      .openapi({ param: { name: 'id', in: 'path' }, description: `${name} id`, maxLength: 16, example: '7' }),
  });

const AccountSchema = documented(() =>
  z
    .strictObject({
      id: idSchema().openapi({ example: 7 }),
      name: z.string().max(ACCOUNT_NAME_MAX).openapi({ example: 'Acme Benefits Lab' }),
      email: z.email().max(EMAIL_MAX).openapi({ example: 'dev@acme.example' }),
      created_at: Timestamp,
      api_version: z.enum(API_VERSIONS).openapi({ description: 'The API version the account is pinned to: what its requests without API-Version get' }),
    })
    .openapi('AdminAccount'),
);

// Written out for the created key rather than derived (omit/extend) from AdminApiKey, which
// would render as an allOf whose strict halves refuse each other's fields.
const keyFields = () => ({
  id: idSchema().openapi({ example: 12 }),
  prefix: z
    .string()
    .length(10)
    .regex(/^scn_[0-9A-Za-z]{6}$/)
    .openapi({ description: 'First characters of the key, to tell keys apart', example: 'scn_4fQ9xZ' }),
  name: z.string().max(KEY_NAME_MAX).nullable().openapi({ example: 'ci' }),
  scope: z.enum(['read', 'read_write']),
  created_at: Timestamp,
  expires_at: Timestamp.nullable(),
});
const KeySchema = documented(() =>
  z
    .strictObject({
      ...keyFields(),
      last_used_at: Timestamp.nullable().openapi({ description: 'Updated at most once a minute' }),
      revoked_at: Timestamp.nullable(),
    })
    .openapi('AdminApiKey'),
);
const CreatedKeySchema = documented(() =>
  z
    .strictObject({
      ...keyFields(),
      key: z
        .string()
        .length(40)
        .regex(/^scn_[0-9A-Za-z]{36}$/)
        .openapi({ description: 'The full key. Shown this once; only its hash is stored.', example: 'scn_4fQ9xZk2LmP8sWq1VbN7cRt5YhJ3dGf6aE0u' }),
    })
    .openapi('AdminCreatedApiKey'),
);

const json = jsonContent;

/** A move's counts (round trips, milliseconds, rows): JavaScript's exact integers. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

const MoveReportSchema = documented(() =>
  z
    .strictObject({
      account_id: idSchema().openapi({ example: 7 }),
      from: z.string().max(5).openapi({ description: 'The database the account leaves (or left)', example: 'DB' }),
      to: z.string().max(5).openapi({ description: 'The database it goes to', example: 'DB_3' }),
      phase: z.enum(['copy', 'catch_up', 'pause', 'sync', 'switch', 'clean_up', 'done']).openapi({ description: 'Where the move is' }),
      done: z.boolean().openapi({ description: 'The account is in its new database and the old rows are gone' }),
      pause_ms: int(0, MAX_COUNT).nullable().openapi({ description: "How long the account's writes were paused (503), once they resumed" }),
      pause_round_trips: int(0, MAX_COUNT).nullable().openapi({ description: 'D1 round trips the move made while writes were paused' }),
      round_trips: int(0, MAX_COUNT).openapi({ description: 'D1 round trips the move has made so far' }),
      rows: z
        .array(z.strictObject({ table: z.string().max(64), rows: int(0, MAX_COUNT) }))
        .max(64)
        .nullable()
        .openapi({ description: 'Rows of the verified copy, per table' }),
    })
    .openapi('AdminMoveReport'),
);

const KEY_NOT_FOUND = 'No key with that id';
const security = [{ AdminToken: [] }];
const EXAMPLE_KEY = {
  id: 12,
  prefix: 'scn_4fQ9xZ',
  name: 'ci',
  scope: 'read' as const,
  created_at: '2026-11-21T08:14:03.512000Z',
  expires_at: '2027-06-30T00:00:00.000000Z',
};

function toKey(row: ApiKey): z.infer<typeof KeySchema> {
  const ts = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    scope: row.scope,
    created_at: formatTimestamp(row.createdAt),
    expires_at: ts(row.expiresAt),
    last_used_at: ts(row.lastUsedAt),
    revoked_at: ts(row.revokedAt),
  };
}

const noAccount = () => new ApiError('not_found', 'No account with that id');

const EXAMPLE_ACCOUNT = { id: 7, name: 'Acme Benefits Lab', email: 'dev@acme.example', created_at: '2026-11-21T08:14:03.512000Z', api_version: '2026-11-21' };

function toAccountForm(account: Account): z.infer<typeof AccountSchema> {
  const { id, name, email, createdAt, apiVersion } = account;
  return { id, name, email, created_at: formatTimestamp(createdAt), api_version: apiVersion as z.infer<typeof AccountSchema>['api_version'] };
}

/**
 * Runs `work` on the database an account or key id names (src/db/databases.ts); when it finds
 * nothing there and the account was moved away (its forwarding, db/moves.ts), once more on the
 * database it went to: one more round trip for a moved account only. The old database's statements
 * refuse a moved account's rows (db/api-keys.ts `notMovedAway`), which stay until the move's
 * clean-up. Null for an id of no bound database or nothing found.
 */
async function atHome<T>(c: Context<AppEnv>, id: number, kind: 'account' | 'key', work: (db: Session) => Promise<T | null>): Promise<T | null> {
  if (!useDatabase(c, databaseOfId(id))) return null;
  const found = await work(c.get('db'));
  if (found !== null) return found;
  const movedTo = kind === 'account' ? await accountMovedTo(c.get('db'), id) : await keyMovedTo(c.get('db'), id);
  return movedTo !== null && useDatabase(c, movedTo) ? work(c.get('db')) : null;
}

export const adminRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      method: 'post',
      path: '/accounts',
      operationId: 'createAccount',
      summary: 'Create an account',
      description:
        'A new account, to issue keys for, placed on the database with the most room. E-mail addresses are unique regardless of letter case: ' +
        'a second one is 409. With every database past 80 % of DATABASE_MAX_BYTES, 507 insufficient_storage and nothing is written.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters, strictUtf8JsonBody] as const,
      request: { body: { required: true, content: json(CreateAccountBody, { name: 'Acme Benefits Lab', email: 'dev@acme.example' }) } },
      responses: documented(() => ({
        201: {
          description: 'Created',
          headers: headers(),
          content: json(AccountSchema, EXAMPLE_ACCOUNT),
        },
        ...problemResponses('admin', 'invalid_json', 'validation_failed', 'conflict', 'payload_too_large', ['insufficient_storage', NO_ROOM]),
      })),
    }),
    async (c) => {
      const { name, email } = c.req.valid('json');
      // On the database with the most room, its address claimed in the directory (src/accounts/create.ts).
      const { defaultApiVersion: apiVersion, databaseMaxBytes: maxBytes } = readConfig(c.env);
      const account = await createAccount(readDatabases(c.env), { name, email, now: Date.now(), apiVersion, maxBytes });
      if (!account) throw new ApiError('conflict', 'An account with that e-mail address exists');
      return c.json(toAccountForm(account), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/accounts/{id}/api_version',
      operationId: 'setAccountApiVersion',
      summary: "Set an account's API version",
      description:
        'Pins the account to an API version: its requests without an API-Version header get that version from now on (an upgrade, ' +
        'or a return to an earlier one). Setting the version it already has changes nothing.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters, strictUtf8JsonBody] as const,
      request: { params: IdParam('Account'), body: { required: true, content: json(SetApiVersionBody, { api_version: '2026-12-01' }) } },
      responses: documented(() => ({
        200: { description: 'The account, at its new version', headers: headers(), content: json(AccountSchema, { ...EXAMPLE_ACCOUNT, api_version: '2026-12-01' }) },
        ...problemResponses('admin', 'not_found', 'invalid_json', 'validation_failed', 'payload_too_large'),
      })),
    }),
    async (c) => {
      const id = Number(c.req.valid('param').id);
      const account = await atHome(c, id, 'account', (db) => setAccountApiVersion(db, { id, version: c.req.valid('json').api_version, now: Date.now() }));
      if (!account) throw noAccount();
      return c.json(toAccountForm(account), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/accounts/{id}/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'The response holds the full key; it is never shown again (only its SHA-256 is stored).',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters, strictUtf8JsonBody] as const,
      request: {
        params: IdParam('Account'),
        body: { required: true, content: json(CreateKeyBody, { name: 'ci', scope: 'read', expires_at: '2027-06-30T00:00:00Z' }) },
      },
      responses: documented(() => ({
        201: {
          description: 'Created',
          headers: headers(),
          content: json(CreatedKeySchema, { ...EXAMPLE_KEY, key: 'scn_4fQ9xZk2LmP8sWq1VbN7cRt5YhJ3dGf6aE0u' }),
        },
        ...problemResponses('admin', 'not_found', 'invalid_json', 'validation_failed', 'payload_too_large'),
      })),
    }),
    async (c) => {
      const accountId = Number(c.req.valid('param').id);
      const body = c.req.valid('json');
      const now = Date.now();
      const expiresAt = body.expires_at === undefined ? null : parseRfc3339(body.expires_at);
      if (expiresAt !== null && expiresAt <= now) {
        throw new ApiError('validation_failed', 'The request body has 1 problem; see errors', {
          errors: [{ path: 'expires_at', message: 'must be in the future' }],
        });
      }
      // The key names the database the account is on (where it was moved, if it was).
      const issued = await atHome(c, accountId, 'account', (db) =>
        issueApiKey(db, accountId, { name: body.name ?? null, scope: body.scope, expiresAt, now, database: c.get('database') }),
      );
      if (!issued) throw noAccount();
      const { key, row } = issued;
      const { last_used_at: _used, revoked_at: _revoked, ...shown } = toKey(row);
      return c.json({ ...shown, key }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/accounts/{id}/keys',
      operationId: 'listApiKeys',
      summary: "List an account's API keys",
      description: 'Every key of the account, revoked and expired ones included, without secrets.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters] as const,
      request: { params: IdParam('Account') },
      responses: documented(() => ({
        200: {
          description: 'The keys, newest first, without secrets',
          headers: headers(),
          content: json(documented(() => z.strictObject({ data: z.array(KeySchema).openapi({ description: 'All keys of the account' }) }).openapi('AdminApiKeyList')), {
            data: [{ ...EXAMPLE_KEY, last_used_at: '2026-11-21T09:02:41.007000Z', revoked_at: null }],
          }),
        },
        ...problemResponses('admin', 'not_found'),
      })),
    }),
    async (c) => {
      const accountId = Number(c.req.valid('param').id);
      const keys = await atHome(c, accountId, 'account', (db) => listApiKeys(db, accountId));
      if (!keys) throw noAccount();
      return c.json({ data: keys.map(toKey) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Effective from the next request. Revoking again changes nothing (the first revoked_at stays).',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters] as const,
      request: { params: IdParam('Key') },
      responses: documented(() => ({
        200: {
          description: 'The revoked key',
          headers: headers(),
          content: json(KeySchema, { ...EXAMPLE_KEY, last_used_at: '2026-11-21T09:02:41.007000Z', revoked_at: '2026-11-22T10:00:00.000000Z' }),
        },
        ...problemResponses('admin', ['not_found', KEY_NOT_FOUND]),
      })),
    }),
    async (c) => {
      const keyId = Number(c.req.valid('param').id);
      const row = await atHome(c, keyId, 'key', (db) => revokeApiKey(db, keyId, Date.now()));
      if (!row) throw new ApiError('not_found', KEY_NOT_FOUND);
      return c.json(toKey(row), 200);
    },
  
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/keys/{id}/roll',
      operationId: 'rollApiKey',
      summary: 'Roll an API key',
      description:
        "A new key with the same account, name and scope and no expiry (not the old key's, which may be an earlier roll's grace), returned in full this once; the old key keeps working for expires_in seconds " +
        '(default 24 hours; 0 = it stops at once), then is refused. A revoked, expired or unknown key → 404.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters, strictUtf8JsonBody] as const,
      request: { params: IdParam('Key'), body: { required: true, content: json(RollKeyBody, { expires_in: 3600 }) } },
      responses: documented(() => ({
        201: {
          description: 'The new key',
          headers: headers(),
          content: json(CreatedKeySchema, { ...EXAMPLE_KEY, id: 13, key: 'scn_7hQ2xZk2LmP8sWq1VbN7cRt5YhJ3dGf6aE0u' }),
        },
        ...problemResponses('admin', ['not_found', 'No live key with that id'], 'invalid_json', 'validation_failed', 'payload_too_large'),
      })),
    }),
    async (c) => {
      const now = Date.now();
      const keyId = Number(c.req.valid('param').id);
      const graceUntil = now + c.req.valid('json').expires_in * 1000;
      let key = '';
      const row = await atHome(c, keyId, 'key', async (db) => {
        // The new key names the database of the old one's account, where both are.
        const minted = await mintApiKey(c.get('database'));
        key = minted.key;
        return rollApiKey(db, { keyId, ...minted, now, graceUntil });
      });
      if (!row) throw new ApiError('not_found', 'No live key with that id');
      const { last_used_at: _used, revoked_at: _revoked, ...shown } = toKey(row);
      return c.json({ ...shown, key }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/accounts/{id}/move',
      operationId: 'moveAccount',
      summary: 'Move an account to another database',
      description:
        'Moves the account whole (its keys, scenarios, revisions, events, webhooks, share links and dashboard members and sessions) to ' +
        'another database while it keeps working: copied in batches, caught up, its writes paused for a moment (answered 503 with ' +
        'Retry-After; reads go on from the old copy), the last differences copied, the new copy verified (every row of every table), ' +
        'then switched (what names the old database is forwarded there: one more round trip until a key is rolled) and the old rows ' +
        'removed. One call does at most max_statements D1 statements: call again until done is true. A call after a failure carries ' +
        'on from where the move got to; moving an account to where it is changes nothing.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin, noQueryParameters, strictUtf8JsonBody] as const,
      request: { params: IdParam('Account'), body: { required: true, content: json(MoveAccountBody, { to: 'DB_3' }) } },
      responses: documented(() => ({
        200: {
          description: 'Where the move got to in this call',
          headers: headers(),
          content: json(MoveReportSchema, { account_id: 7, from: 'DB', to: 'DB_3', phase: 'done', done: true, pause_ms: 41, pause_round_trips: 9, round_trips: 63, rows: [{ table: 'accounts', rows: 1 }, { table: 'scenarios', rows: 120 }] }),
        },
        ...problemResponses('admin', 'not_found', ['conflict', 'The account is being moved to another database: finish that move first'], 'invalid_json', 'validation_failed', 'payload_too_large'),
      })),
    }),
    async (c) => {
      const accountId = Number(c.req.valid('param').id);
      const body = c.req.valid('json');
      const to = databaseIndex(body.to)!;
      const databases = readDatabases(c.env);
      if (!databases[to]) {
        throw new ApiError('validation_failed', 'The request body has 1 problem; see errors', { errors: [{ path: 'to', message: `no database ${body.to} is bound` }] });
      }
      const { moveAccount, MoveRefusedError, moveReportJson } = await import('../../src/moves/mover.ts');
      try {
        const report = await moveAccount(databases, { accountId, to, budget: body.max_statements });
        const reply: z.infer<typeof MoveReportSchema> = moveReportJson(report);
        return c.json(reply, 200);
      } catch (error) {
        if (error instanceof MoveRefusedError) throw new ApiError(error.reason, error.message);
        throw error;
      }
    },
  );
