// A scenario's history: list its revisions, view one, restore one, diff two. Mounted under
// /scenarios beside the scenario routes; each route is defined (createRoute) right above its handler.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import { apiKey } from '../auth/bearer.ts';
import { assertCanSignCharts, chartUrl } from '../scenarios/chart/signing.ts';
import { readConfig, type AppEnv } from '../env.ts';
import { conditionalHeader, etagFor, ifMatchVersions } from '../http/conditional.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { pageQuery, toPageRequest } from '../http/pagination.ts';
import { routeChecks } from '../http/checks.ts';
import { noQueryParameters, refuseQueryParameters } from '../http/query.ts';
import { validationHook } from '../http/validation.ts';
import { ScenarioResponseSchema, toScenarioForm } from '../scenarios/forms.ts';
import { expiredAt } from '../scenarios/retention.ts';
import { ScenarioToken, TokenParams } from '../scenarios/params.ts';
import { newEventId } from '../scenarios/workflows.ts';
import { exampleDiff, exampleRestored, exampleRevision, exampleRevisionList } from './examples.ts';
import { DiffResponseSchema, RevisionListSchema, RevisionResponseSchema, toRevisionForm } from './forms.ts';
import { queueEvent } from '../webhooks/producer.ts';
import { diffRevisions, listRevisions, restoreRevision, viewRevision } from './workflows.ts';

const VERSION = /^[1-9][0-9]{0,15}$/;
/** Restore, after the API key: no query string, a deployment able to sign chart_img (before the write). */
const restoreChecks = routeChecks(refuseQueryParameters, assertCanSignCharts);
const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

/** The {version} path parameter: a version number as the ETag names it ("v2" is version 2). */
const RevisionVersion = base.openAPIRegistry.registerParameter(
  'RevisionVersion',
  z
    .string()
    .regex(VERSION)
    .openapi({ param: { name: 'version', in: 'path', description: 'A version number (the N of an ETag "vN")' }, maxLength: 16, example: '1' }),
);
const RevisionParams = z.object({ token: ScenarioToken, version: RevisionVersion });
const versionQuery = (description: string) => z.string().regex(VERSION, 'must be a positive integer (a version number)').openapi({ description, maxLength: 16 });
const DiffQuery = z.strictObject({
  from: versionQuery('The version to diff from').openapi({ example: '1' }),
  to: versionQuery('The version to diff to (default: the current one)').optional(),
});

export const revisionRoutes = base
  .openapi(
    createRoute({
      method: 'get',
      path: '/{token}/revisions',
      operationId: 'listRevisions',
      summary: "List a scenario's revisions",
      description:
        'Every version a create, save or restore stored, newest first (the newest SCENARIO_REVISIONS_KEPT, default 100, are kept), ' +
        'keyset-paginated by version like the scenario list. Read keys may list.',
      tags: ['Revisions'],
      middleware: [apiKey('read')] as const,
      request: { params: TokenParams, query: pageQuery('version', 'a version number', '3') },
      responses: documented(() => ({
        200: { description: 'A page of revisions', headers: successHeaders('api-key'), content: jsonContent(RevisionListSchema, exampleRevisionList) },
        ...problemResponses('api-key', 'not_found'),
      })),
    }),
    async (c) => {
      const { token } = c.req.valid('param');
      const page = await listRevisions(c.get('keyed'), token, toPageRequest(c.req.valid('query')));
      return c.json({ data: page.rows.map(toRevisionForm), has_more: page.hasMore }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{token}/revisions/{version}',
      operationId: 'viewRevision',
      summary: 'View a revision',
      description: 'One version of the scenario as that change stored it; a version never made, or pruned, is 404.',
      tags: ['Revisions'],
      middleware: [apiKey('read'), noQueryParameters] as const,
      request: { params: RevisionParams },
      responses: documented(() => ({
        200: { description: 'The revision', headers: successHeaders('api-key'), content: jsonContent(RevisionResponseSchema, exampleRevision) },
        ...problemResponses('api-key', 'not_found'),
      })),
    }),
    async (c) => {
      const { token, version } = c.req.valid('param');
      const revision = await viewRevision(c.get('keyed'), token, Number(version));
      return c.json({ data: toRevisionForm(revision) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{token}/revisions/{version}/restore',
      operationId: 'restoreRevision',
      summary: 'Restore a revision',
      description:
        "Saves that revision's data as the scenario's next version (it takes no body; one sent is ignored), recorded like a save. " +
        'With If-Match, only if the scenario is still that version (else 412, with the current ETag). Needs a read_write key.',
      tags: ['Revisions'],
      middleware: [apiKey('write'), restoreChecks] as const,
      request: {
        params: RevisionParams,
        headers: z.object({ 'if-match': conditionalHeader('The ETag the restore is based on (e.g. "v3"), or * for "if it exists"') }),
      },
      responses: documented(() => ({
        200: {
          description: 'Restored: the scenario at its new version',
          headers: successHeaders('api-key', 'ETag'),
          content: jsonContent(ScenarioResponseSchema, exampleRestored),
        },
        ...problemResponses('api-key', 'forbidden', 'not_found', 'invalid_header', 'precondition_failed', 'insufficient_storage'),
      })),
    }),
    async (c) => {
      const { token, version } = c.req.valid('param');
      const eventId = newEventId();
      const versions = ifMatchVersions(c.req.valid('header')['if-match']);
      const keyed = c.get('keyed');
      const { revisionsKept, retentionDays } = readConfig(c.env);
      const restored = await restoreRevision(keyed, token, Number(version), eventId, versions, revisionsKept);
      queueEvent(c, eventId);
      const { scenario } = restored;
      const form = toScenarioForm(scenario, expiredAt(scenario.updatedAt, retentionDays, keyed.key.now), await chartUrl(c, token));
      return c.json({ data: form }, 200, { ETag: etagFor(scenario.version) });
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{token}/diff',
      operationId: 'diffRevisions',
      summary: 'Diff two versions',
      description:
        "An RFC 6902 JSON Patch that turns version `from`'s scenario_data into version `to`'s (default: the current version); " +
        'paths are RFC 6901 pointers. Either version unknown or pruned is 404.',
      tags: ['Revisions'],
      middleware: [apiKey('read')] as const,
      request: { params: TokenParams, query: DiffQuery },
      responses: documented(() => ({
        200: { description: 'The patch', headers: successHeaders('api-key'), content: jsonContent(DiffResponseSchema, exampleDiff) },
        ...problemResponses('api-key', 'not_found'),
      })),
    }),
    async (c) => {
      const { token } = c.req.valid('param');
      const query = c.req.valid('query');
      const diff = await diffRevisions(c.get('keyed'), token, Number(query.from), query.to === undefined ? undefined : Number(query.to));
      return c.json({ data: { from: diff.from, to: diff.to, patch: diff.patch } }, 200);
    },
  );

