// GET /shared/{secret}: what a share link opens, without a key. A page rendered here (page.ts), or
// with Accept: application/json the same data as JSON. One D1 round trip on the database the
// secret names: the address's throttle, the view counted, the scenario. A secret that opens
// nothing (malformed, unknown, revoked, expired, or its scenario deleted) gets the same 404 and
// counts as a failed credential of the client's address (auth/bearer.ts); while the address is
// throttled those failures get 429, while a live link keeps opening.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import type { Context } from 'hono';
import { clientAddress, countAuthFailure, throttled } from '../auth/bearer.ts';
import type { AppEnv } from '../env.ts';
import { useDatabase } from '../http/middleware.ts';
import { documented, headers, jsonContent, problemResponses } from '../http/openapi.ts';
import { ApiError, problemResponse } from '../http/problem.ts';
import { validationHook } from '../http/validation.ts';
import { SharedScenarioSchema, toSharedJson } from './forms.ts';
import { notFoundPage, pageHeaders, sharedPage, throttledPage } from './page.ts';
import { databaseOfShareSecret, SHARE_SECRET_PATTERN } from './secret.ts';
import { viewShared } from './workflows.ts';

/** JSON when the client asks for it and not for HTML (a browser lists text/html). */
function wantsJson(c: Context): boolean {
  const accept = c.req.header('Accept') ?? '';
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
}

/** The reply to a secret that opens nothing: 404, or 429 once the address is over its failures. */
async function failedLookUp(c: Context<AppEnv>, alreadyThrottled: boolean): Promise<Response> {
  // Counted like a failing API key (AUTH_FAILURE_LIMITER); not counted again while refused.
  const over = alreadyThrottled || (await countAuthFailure(c));
  const error = over ? throttled() : new ApiError('not_found', 'This link does not open anything');
  if (wantsJson(c)) return problemResponse(c, error);
  return c.html(over ? throttledPage() : notFoundPage(), error.status, { ...(await pageHeaders()), ...error.headers });
}

const html = (description: string) => ({ 'text/html': { schema: z.string().max(1_048_576).openapi({ description }) } });

export const sharedRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/{secret}',
    operationId: 'viewSharedScenario',
    summary: 'Open a share link',
    description:
      'What a share link shows, without a key: the scenario as it is saved now, as a page (no script, readable on a phone) or, ' +
      'with Accept: application/json, as JSON (no id, account or token; nicknames only if the link shows them). Each opening is ' +
      'counted. An unknown, revoked or expired link, or one whose scenario was deleted, is the same 404; such failures count ' +
      'against the client address like failed API keys (429 once over the limit).',
    tags: ['Share links'],
    security: [],
    request: {
      params: z.object({
        secret: z.string().openapi({ param: { name: 'secret', in: 'path', description: 'The secret of the link (the last part of its URL)' }, maxLength: 43, example: 'AjX0c9Vb3mQeR7tYh2LpZ8nKw5sD1fGu4oIyT6aEr0M' }),
      }),
    },
    responses: documented(() => {
      const problems = problemResponses('public', 'not_found', 'rate_limited');
      const withPage = (status: 404 | 429, description: string) => ({
        ...problems[status]!,
        description: problems[status]!.description,
        headers: problems[status]!.headers,
        content: { ...problems[status]!.content, ...html(description) },
      });
      return {
        200: {
          description: 'The shared scenario: a page (text/html) or, with Accept: application/json, JSON',
          headers: headers(),
          content: {
            ...html('The page: state, year, programs, each adult and child, their incomes and a chart'),
            ...jsonContent(SharedScenarioSchema),
          },
        },
        ...problems,
        404: withPage(404, 'The page saying the link opens nothing'),
        429: withPage(429, 'The page saying to wait a minute'),
      };
    }),
  }),
  async (c) => {
    const { secret } = c.req.valid('param');
    const database = SHARE_SECRET_PATTERN.test(secret) ? databaseOfShareSecret(secret) : -1;
    if (database < 0 || !useDatabase(c, database)) return failedLookUp(c, false);
    let { shared, throttled: isThrottled, movedTo } = await viewShared(c.get('db'), secret, clientAddress(c), Date.now());
    // The link's account was moved: its database, one more round trip.
    if (!shared && movedTo !== null && useDatabase(c, movedTo)) ({ shared, throttled: isThrottled } = await viewShared(c.get('db'), secret, clientAddress(c), Date.now()));
    if (!shared) return failedLookUp(c, isThrottled);
    if (wantsJson(c)) return c.json(toSharedJson(shared), 200, { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow', Vary: 'Accept' });
    return c.html(sharedPage(shared), 200, await pageHeaders());
  },
);
