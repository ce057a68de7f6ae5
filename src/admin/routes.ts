// The admin API the account dashboard calls: accounts, and their keys (created, listed, revoked).
// Guarded by ADMIN_TOKEN; API keys are not accepted here.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { requireAdmin } from '../auth/admin.ts';
import { issueApiKey } from '../auth/issue-key.ts';
import { findAccount, insertAccount } from '../db/accounts.ts';
import { listApiKeys, revokeApiKey } from '../db/api-keys.ts';
import type { ApiKey } from '../db/schema.ts';
import type { AppEnv } from '../env.ts';
import { jsonContent, problemResponses, TimestampSchema } from '../http/openapi.ts';
import { ApiError } from '../http/problem.ts';
import { formatTimestamp, parseRfc3339 } from '../http/timestamps.ts';
import { validationHook } from '../http/validation.ts';

const ADMIN_PROBLEMS = ['unauthorized', 'rate_limited'] as const;
const Timestamp = TimestampSchema;
const IdParam = (name: string) =>
  z.object({ id: z.string().regex(/^[1-9][0-9]{0,15}$/).openapi({ param: { name: 'id', in: 'path' }, description: `${name} id` }) });

const AccountSchema = z
  .object({ id: z.int(), name: z.string(), email: z.string(), created_at: Timestamp })
  .openapi('AdminAccount');
const CreateAccountBody = z
  .strictObject({ name: z.string().trim().min(1).max(200), email: z.email().max(254) })
  .openapi('CreateAccountBody');

const KeySchema = z
  .object({
    id: z.int(),
    prefix: z.string().openapi({ description: 'First characters of the key, to tell keys apart', example: 'scn_4fQ9xZ' }),
    name: z.string().nullable(),
    scope: z.enum(['read', 'read_write']),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable().openapi({ description: 'Updated at most once a minute' }),
    revoked_at: Timestamp.nullable(),
  })
  .openapi('AdminApiKey');
const CreatedKeySchema = KeySchema.omit({ last_used_at: true, revoked_at: true })
  .extend({ key: z.string().openapi({ description: 'The full key. Shown this once; only its hash is stored.' }) })
  .openapi('AdminCreatedApiKey');
const CreateKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    scope: z.enum(['read', 'read_write']).default('read_write'),
    expires_at: z
      .string()
      .refine((v) => parseRfc3339(v) !== null, 'must be an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z')
      .optional(),
  })
  .openapi('CreateKeyBody');

const json = jsonContent;
const security = [{ AdminToken: [] }];

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

async function requireAccount(c: { get: (k: 'db') => AppEnv['Variables']['db'] }, id: string) {
  const account = await findAccount(c.get('db'), Number(id));
  if (!account) throw new ApiError('not_found', 'No account with that id');
  return account;
}

export const adminRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      method: 'post',
      path: '/accounts',
      summary: 'Create an account',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin] as const,
      request: { body: { required: true, content: json(CreateAccountBody) } },
      responses: {
        201: { description: 'Created', content: json(AccountSchema) },
        ...problemResponses(...ADMIN_PROBLEMS, 'invalid_json', 'validation_failed', 'conflict', 'payload_too_large'),
      },
    }),
    async (c) => {
      const { name, email } = c.req.valid('json');
      const account = await insertAccount(c.get('db'), { name, email, now: Date.now() });
      if (!account) throw new ApiError('conflict', 'An account with that e-mail address exists');
      return c.json({ id: account.id, name: account.name, email: account.email, created_at: formatTimestamp(account.createdAt) }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/accounts/{id}/keys',
      summary: 'Create an API key',
      description: 'The response holds the full key; it is never shown again.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin] as const,
      request: { params: IdParam('Account'), body: { required: true, content: json(CreateKeyBody) } },
      responses: {
        201: { description: 'Created', content: json(CreatedKeySchema) },
        ...problemResponses(...ADMIN_PROBLEMS, 'not_found', 'invalid_json', 'validation_failed', 'payload_too_large'),
      },
    }),
    async (c) => {
      const account = await requireAccount(c, c.req.valid('param').id);
      const body = c.req.valid('json');
      const now = Date.now();
      const expiresAt = body.expires_at === undefined ? null : parseRfc3339(body.expires_at);
      if (expiresAt !== null && expiresAt <= now) {
        throw new ApiError('validation_failed', 'The request body has 1 problem; see errors', {
          errors: [{ path: 'expires_at', message: 'must be in the future' }],
        });
      }
      const { key, row } = await issueApiKey(c.get('db'), account.id, { name: body.name ?? null, scope: body.scope, expiresAt, now });
      const { last_used_at: _used, revoked_at: _revoked, ...shown } = toKey(row);
      return c.json({ ...shown, key }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/accounts/{id}/keys',
      summary: "List an account's API keys",
      tags: ['Admin'],
      security,
      middleware: [requireAdmin] as const,
      request: { params: IdParam('Account') },
      responses: {
        200: { description: 'The keys, newest first, without secrets', content: json(z.object({ data: z.array(KeySchema) })) },
        ...problemResponses(...ADMIN_PROBLEMS, 'not_found'),
      },
    }),
    async (c) => {
      const account = await requireAccount(c, c.req.valid('param').id);
      const keys = await listApiKeys(c.get('db'), account.id);
      return c.json({ data: keys.map(toKey) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/keys/{id}',
      summary: 'Revoke an API key',
      description: 'Effective from the next request. Revoking again changes nothing.',
      tags: ['Admin'],
      security,
      middleware: [requireAdmin] as const,
      request: { params: IdParam('Key') },
      responses: {
        200: { description: 'The revoked key', content: json(KeySchema) },
        ...problemResponses(...ADMIN_PROBLEMS, 'not_found'),
      },
    }),
    async (c) => {
      const row = await revokeApiKey(c.get('db'), Number(c.req.valid('param').id), Date.now());
      if (!row) throw new ApiError('not_found', 'No key with that id');
      return c.json(toKey(row), 200);
    },
  );
