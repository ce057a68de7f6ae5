// Request bodies of the admin API, also used by `npm run keys`, so accounts and keys made from
// the command line meet the same rules (and the bounds the OpenAPI document states).
import * as z from 'zod';
import '../../src/http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { int } from '../../src/http/scalars.ts';
import { parseRfc3339 } from '../../src/http/timestamps.ts';
import { API_VERSIONS } from '../../src/api-versions.ts';
import { ACCOUNT_NAME_MAX, EMAIL_MAX } from '../../src/accounts/limits.ts';

export const KEY_NAME_MAX = 100;

export const CreateAccountBody = z
  .strictObject({
    name: z.string().trim().min(1).max(ACCOUNT_NAME_MAX).openapi({ example: 'Acme Benefits Lab' }),
    email: z.email().max(EMAIL_MAX).openapi({ description: 'Unique regardless of letter case', example: 'dev@acme.example' }),
  })
  .openapi('CreateAccountBody');

export const CreateKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(KEY_NAME_MAX).optional().openapi({ description: 'A label, to tell keys apart', example: 'ci' }),
    scope: z.enum(['read', 'read_write']).default('read_write').openapi({ description: 'read: GET only; read_write (default): everything' }),
    expires_at: z
      .string()
      .max(64)
      .refine((v) => parseRfc3339(v) !== null, 'must be an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z')
      .optional()
      .openapi({ format: 'date-time', description: 'When the key stops working (RFC 3339, any offset); must be in the future', example: '2027-06-30T00:00:00Z' }),
  })
  .openapi('CreateKeyBody');

/** The longest grace a roll gives the old key (the dashboard offers now, 1 hour, 24 hours, 7 days). */
export const ROLL_GRACE_MAX_SECONDS = 7 * 24 * 60 * 60;
export const ROLL_GRACE_DEFAULT_SECONDS = 24 * 60 * 60;

export const RollKeyBody = z
  .strictObject({
    expires_in: int(0, ROLL_GRACE_MAX_SECONDS)
      .default(ROLL_GRACE_DEFAULT_SECONDS)
      .openapi({
        description: 'Seconds the old key keeps working (0: it stops at once; default 86400, at most 604800). An earlier expiry it already had is kept.',
        example: 3600,
      }),
  })
  .openapi('RollKeyBody');

export const SetApiVersionBody = z
  .strictObject({
    api_version: z.enum(API_VERSIONS).openapi({ description: 'One of the versions GET /api_versions lists', example: '2026-12-01' }),
  })
  .openapi('SetApiVersionBody');

/** Statements one call of the move may send: D1 takes 1,000 queries an invocation; some are left for the call's own. */
export const MOVE_STATEMENTS_MAX = 900;

export const MoveAccountBody = z
  .strictObject({
    to: z
      .string()
      .max(5)
      .regex(/^DB(_([2-9]|1[0-3]))?$/)
      .openapi({ description: "The database to move the account to: its binding's name in wrangler.toml (DB, DB_2, DB_3, …)", example: 'DB_3' }),
    max_statements: int(50, MOVE_STATEMENTS_MAX)
      .default(MOVE_STATEMENTS_MAX)
      .openapi({ description: 'At most this many D1 statements in this call (default 900, within D1\'s 1,000 queries an invocation); call again until done', example: 900 }),
  })
  .openapi('MoveAccountBody');
