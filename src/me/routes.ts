// GET /me — who the API key belongs to; the quickest check that a key works.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { requireApiKey } from '../auth/bearer.ts';
import type { AppEnv } from '../env.ts';
import { AUTHENTICATED_PROBLEMS, problemResponses } from '../http/openapi.ts';
import { validationHook } from '../http/validation.ts';

const AccountSchema = z
  .object({ name: z.string().openapi({ example: 'Acme Benefits Lab' }), email: z.string().openapi({ example: 'dev@acme.example' }) })
  .openapi('Account');

export const meRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/me',
    summary: 'The account of the API key',
    tags: ['Account'],
    middleware: [requireApiKey] as const,
    responses: {
      200: { description: 'The account', content: { 'application/json': { schema: AccountSchema } } },
      ...problemResponses(...AUTHENTICATED_PROBLEMS),
    },
  }),
  (c) => {
    const { name, email } = c.get('caller');
    return c.json({ name, email }, 200);
  },
);
