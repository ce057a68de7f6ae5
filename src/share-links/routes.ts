// A scenario's share links through the API: create (the URL shown once), list, revoke. Read keys
// may list; creating and revoking need read_write. The URL is built from PUBLIC_ORIGIN, never the
// request's Host. Mounted at /scenarios beside the scenario routes.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import { apiKey } from '../auth/bearer.ts';
import { readConfig, type AppEnv } from '../env.ts';
import { strictUtf8JsonBody } from '../http/body.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { ApiError } from '../http/problem.ts';
import { noQueryParameters } from '../http/query.ts';
import { validationHook } from '../http/validation.ts';
import { TokenParams, ScenarioToken } from '../scenarios/params.ts';
import {
  CreatedShareLinkSchema,
  CreateShareLinkBodySchema,
  ShareLinkIdSchema,
  ShareLinkListSchema,
  ShareLinkSchema,
  toCreatedShareLink,
  toShareLinkForm,
} from './forms.ts';
import { SHARE_LINK_DEFAULT_SECONDS } from './limits.ts';
import { newShareLinkId, newShareSecret } from './secret.ts';
import { createShareLink, listShareLinks, revokeShareLink } from './workflows.ts';

const routesBase = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const ShareLinkId = routesBase.openAPIRegistry.registerParameter(
  'ShareLinkId',
  ShareLinkIdSchema().openapi({ param: { name: 'id', in: 'path', description: 'The share link id: sl_ + 32 hex digits' } }),
);
const LinkParams = z.object({ token: ScenarioToken, id: ShareLinkId });
const NOT_FOUND = ['not_found', 'No scenario with that token'] as const;

const EXAMPLE_LINK = {
  id: 'sl_6f1c0a9e3b5d47e2a8c4f0b1d3e5a7c9',
  created_at: '2026-11-21T08:14:03.512000Z',
  expires_at: '2026-11-28T08:14:03.512000Z',
  show_nicknames: false,
};
const EXAMPLE_LISTED = { ...EXAMPLE_LINK, views: 3, last_viewed_at: '2026-11-22T17:40:11.204000Z', revoked_at: null };

/** The origin links are built from: 500 naming PUBLIC_ORIGIN (never its value's absence in a link) when it is not set. */
function publicOrigin(env: AppEnv['Bindings']): string {
  const origin = readConfig(env).publicOrigin;
  if (origin === null) throw new ApiError('internal_error', 'PUBLIC_ORIGIN is not set (or is not an http(s) origin): share links cannot be made');
  return origin;
}

export const shareLinkRoutes = routesBase
  .openapi(
    createRoute({
      method: 'post',
      path: '/{token}/share_links',
      operationId: 'createShareLink',
      summary: 'Create a share link',
      description:
        'A read-only link to the scenario for someone without a key: GET /shared/<secret> shows its current data as a page (or ' +
        'JSON). The URL is in this reply only (only a hash of its secret is kept). It works until it expires (expires_in, default ' +
        '7 days, 1 hour to 90 days) or is revoked. At most 20 live links a scenario (409 too_many_share_links).',
      tags: ['Share links'],
      middleware: [apiKey('write'), noQueryParameters, strictUtf8JsonBody] as const,
      request: {
        params: TokenParams,
        body: { required: false, content: jsonContent(CreateShareLinkBodySchema, { expires_in: 86400, show_nicknames: false }) },
      },
      responses: documented(() => ({
        201: {
          description: 'Created: the URL is shown only here',
          headers: successHeaders('api-key'),
          content: jsonContent(CreatedShareLinkSchema, { ...EXAMPLE_LINK, url: 'https://scenarios.example.org/shared/AjX0c9Vb3mQeR7tYh2LpZ8nKw5sD1fGu4oIyT6aEr0M' }),
        },
        ...problemResponses('api-key', 'forbidden', NOT_FOUND, 'invalid_json', 'validation_failed', 'too_many_share_links', 'payload_too_large', 'insufficient_storage'),
      })),
    }),
    async (c) => {
      const { token } = c.req.valid('param');
      const body = c.req.valid('json');
      const origin = publicOrigin(c.env);
      const now = c.get('keyed').key.now;
      const secret = newShareSecret(c.get('database'));
      const link = await createShareLink(c.get('keyed'), token, {
        id: newShareLinkId(),
        secret,
        expiresAt: now + (body.expires_in ?? SHARE_LINK_DEFAULT_SECONDS) * 1000,
        showNicknames: body.show_nicknames ?? false,
      });
      return c.json(toCreatedShareLink(link, `${origin}/shared/${secret}`), 201);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{token}/share_links',
      operationId: 'listShareLinks',
      summary: 'List share links',
      description: "The scenario's newest 100 links, newest first, with their views; never their URLs. Read keys may list.",
      tags: ['Share links'],
      middleware: [apiKey('read'), noQueryParameters] as const,
      request: { params: TokenParams },
      responses: documented(() => ({
        200: { description: 'The links', headers: successHeaders('api-key'), content: jsonContent(ShareLinkListSchema, { data: [EXAMPLE_LISTED], has_more: false }) },
        ...problemResponses('api-key', NOT_FOUND),
      })),
    }),
    async (c) => {
      const page = await listShareLinks(c.get('keyed'), c.req.valid('param').token);
      return c.json({ data: page.links.map(toShareLinkForm), has_more: page.hasMore }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{token}/share_links/{id}',
      operationId: 'revokeShareLink',
      summary: 'Revoke a share link',
      description: 'The link opens nothing from now on (the same 404 as an unknown one). Revoking it again answers the same.',
      tags: ['Share links'],
      middleware: [apiKey('write'), noQueryParameters] as const,
      request: { params: LinkParams },
      responses: documented(() => ({
        200: {
          description: 'Revoked',
          headers: successHeaders('api-key'),
          content: jsonContent(ShareLinkSchema, { ...EXAMPLE_LISTED, revoked_at: '2026-11-23T09:00:00.000000Z' }),
        },
        ...problemResponses('api-key', 'forbidden', ['not_found', 'No share link with that id on this scenario']),
      })),
    }),
    async (c) => {
      const { token, id } = c.req.valid('param');
      return c.json(toShareLinkForm(await revokeShareLink(c.get('keyed'), token, id)), 200);
    },
  );
