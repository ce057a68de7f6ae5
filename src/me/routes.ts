// GET /me — who the API key belongs to; the quickest check that a key works.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import { ACCOUNT_NAME_MAX, EMAIL_MAX } from '../accounts/limits.ts';
import { apiKey } from '../auth/bearer.ts';
import type { AppEnv } from '../env.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { noQueryParameters } from '../http/query.ts';
import { validationHook } from '../http/validation.ts';
import { API_VERSIONS, knownApiVersion, SPEC_API_VERSION } from '../api-versions.ts';

const AccountSchema = documented(() =>
  z
    .strictObject({
      name: z.string().max(ACCOUNT_NAME_MAX).openapi({ example: 'Acme Benefits Lab' }),
      email: z.email().max(EMAIL_MAX).openapi({ example: 'dev@acme.example' }),
      api_version: z.enum(API_VERSIONS).openapi({
        description: 'The API version the account is pinned to: what requests without an API-Version header get (GET /api_versions lists them)',
        example: '2026-11-21',
      }),
    })
    .openapi('Account'),
);

export const meRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The account of the API key',
    description:
      'The name and e-mail address of the account the API key belongs to, and the API version it is pinned to: the quickest check that a key works.',
    tags: ['Account'],
    middleware: [apiKey('read'), noQueryParameters] as const,
    responses: documented(() => ({
      200: {
        description: 'The account',
        headers: successHeaders('api-key'),
        content: jsonContent(AccountSchema, { name: 'Acme Benefits Lab', email: 'dev@acme.example', api_version: '2026-11-21' }),
      },
      ...problemResponses('api-key'),
    })),
  }),
  async (c) => {
    const { caller } = await c.get('keyed').run({});
    // The pinned version is the account's setting, shown as it is stored (one this service knows).
    const apiVersion = knownApiVersion(caller.accountApiVersion) ?? SPEC_API_VERSION;
    return c.json({ name: caller.accountName, email: caller.accountEmail, api_version: apiVersion }, 200);
  },
);
