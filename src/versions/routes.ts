// GET /api_versions — the changelog, made from the version change modules themselves (./versions.ts),
// so what a version changed is written once, where the change is. No key: it is public reference.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import type { AppEnv } from '../env.ts';
import { documented, headers, jsonContent, problemResponses } from '../http/openapi.ts';
import { noQueryParameters } from '../http/query.ts';
import { validationHook } from '../http/validation.ts';
import { API_VERSIONS } from '../api-versions.ts';
import { VERSIONS } from './versions.ts';

const ChangelogSchema = documented(() =>
  z
    .strictObject({
      data: z
        .array(
          z.strictObject({
            version: z.enum(API_VERSIONS).openapi({ description: 'The version, named by its date: send it as the API-Version header' }),
            released: z.string().length(10).regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/).openapi({ format: 'date' }),
            summary: z.string().max(500),
            changes: z
              .array(z.strictObject({ title: z.string().max(200), description: z.string().max(2000) }))
              .max(50)
              .openapi({ description: 'What this version changed since the one before it' }),
          }),
        )
        .max(API_VERSIONS.length)
        .openapi({ description: 'Every version served, newest first' }),
    })
    .openapi('ApiVersionList'),
);

/** The changelog, built once per isolate (the first time it is asked for). */
let changelog: z.infer<typeof ChangelogSchema> | undefined;
export function buildChangelog(): z.infer<typeof ChangelogSchema> {
  changelog ??= {
    data: VERSIONS.map(({ version, released, summary, changes }) => ({
      version,
      released,
      summary,
      changes: changes.map(({ title, description }) => ({ title, description })),
    })),
  };
  return changelog;
}

export const versionRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/api_versions',
    operationId: 'listApiVersions',
    summary: 'List API versions',
    description:
      'Every API version, newest first, with what each changed since the one before it. A request gets the version its ' +
      'API-Version header names, else the one its account is pinned to (GET /me shows it; the dashboard upgrades it). Needs no key.',
    tags: ['Versions'],
    security: [],
    middleware: [noQueryParameters] as const,
    responses: documented(() => ({
      200: {
        description: 'The versions and their changes',
        headers: headers(),
        content: jsonContent(ChangelogSchema, buildChangelog),
      },
      ...problemResponses('public'),
    })),
  }),
  (c) => c.json(buildChangelog(), 200, { 'Cache-Control': 'public, max-age=300' }),
);
