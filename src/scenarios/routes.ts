// The scenario resource: list, view, create, save, delete. Each route is defined (createRoute)
// right above its handler; the same zod schemas validate the request and document it.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import type { Context } from 'hono';
import { apiKey } from '../auth/bearer.ts';
import { sha256Hex } from '../auth/api-key.ts';
import { assertCanSignCharts, chartUrl } from './chart/signing.ts';
import { readConfig, type AppEnv } from '../env.ts';
import { decodeStrictUtf8Json } from '../http/body.ts';
import { routeChecks } from '../http/checks.ts';
import { conditionalHeader, etagFor, ifMatchVersions, noneMatchHits } from '../http/conditional.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { pageQuery, toPageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { noQueryParameters, refuseQueryParameters } from '../http/query.ts';
import { validationHook } from '../http/validation.ts';
import { exampleCreateBody, exampleDeletion, exampleExport, exampleList, exampleSaveBody, exampleSaved, exampleScenario } from './examples.ts';
import { ScenarioDeletionSchema, ScenarioListSchema, ScenarioResponseSchema, toDeletion, toListItem, toScenarioForm } from './forms.ts';
import { requestOrigin } from '../http/request.ts';
import { ScenarioToken, TokenParams } from './params.ts';
import { expiredAt } from './retention.ts';
import { CreateScenarioBodySchema, SaveScenarioBodySchema, type ScenarioDataInput } from './schema.ts';
import { queueEvent } from '../webhooks/producer.ts';
import { createScenario, deleteScenario, listScenarios, newEventId, saveScenario, viewScenario } from './workflows.ts';
import { CSV_COLUMNS, EXPORT_CONTENT_TYPES, EXPORT_MAX_BYTES, EXPORT_FORMATS, EXPORT_PAGE_SIZE, exportDisposition, exportScenarios, exportStopReason } from './export.ts';
import { filterQueryFields, toFilter } from './filters.ts';
import { log } from '../http/log.ts';

/**
 * Create and save, after the API key and before their validators: no query string, the body as
 * strict UTF-8, a deployment able to sign chart_img; in that order, in one middleware layer.
 */
const jsonWriteChecks = routeChecks(refuseQueryParameters, decodeStrictUtf8Json, assertCanSignCharts);

const routesBase = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

// The {token} path parameter, one component for every scenario path (revisions and the chart too).
routesBase.openAPIRegistry.registerParameter('ScenarioToken', ScenarioToken);
const PageQuery = pageQuery('id', 'a list item id', '1042');
// The state filter, one component for the list and the export (the OpenAPI lint's numeric-id rule
// is switched off for it by name: a FIPS code is public reference data, not an object's id).
const filters = {
  ...filterQueryFields,
  state_id: routesBase.openAPIRegistry.registerParameter(
    'StateIdFilter',
    filterQueryFields.state_id.openapi({ param: { name: 'state_id', in: 'query' } }),
  ),
};
const ListQuery = PageQuery.extend(filters);
const ExportQuery = z.strictObject({
  format: z
    .enum(EXPORT_FORMATS)
    .optional()
    .openapi({ description: 'ndjson (default): one list item per line; csv: one summary row per scenario, with a header row' }),
  starting_after: PageQuery.shape.starting_after.openapi({
    description: 'Resume an interrupted export: the id of the last line received (its `id`; the first CSV column)',
  }),
  ...filters,
});

function dataOf(body: { scenarioData?: ScenarioDataInput | undefined; scenario_data?: ScenarioDataInput | undefined }): ScenarioDataInput {
  const data = body.scenarioData ?? body.scenario_data;
  if (!data) throw new Error('validated body without data');
  return data;
}

// List, create and view; save and delete are chained on at the end of this file.
const listCreateViewRoutes = routesBase
  .openapi(
    createRoute({
      method: 'get',
      path: '/',
      operationId: 'listScenarios',
      summary: 'List scenarios',
      description:
        "Newest first, keyset-paginated by id: the last item's id as starting_after gives the next page, the first item's id as " +
        'ending_before the previous one (at most one of the two). Unknown query parameters are refused.',
      tags: ['Scenarios'],
      middleware: [apiKey('read')] as const,
      request: { query: ListQuery },
      responses: documented(() => ({
        200: { description: 'A page of scenarios', headers: successHeaders('api-key'), content: jsonContent(ScenarioListSchema, exampleList) },
        ...problemResponses('api-key', 'invalid_query'),
      })),
    }),
    async (c) => {
      const keyed = c.get('keyed');
      const query = c.req.valid('query');
      const page = await listScenarios(keyed, toPageRequest(query), toFilter(query));
      const { retentionDays } = readConfig(c.env);
      return c.json({ data: page.rows.map((row) => toListItem(row, expiredAt(row.updatedAt, retentionDays, keyed.key.now))), has_more: page.hasMore }, 200);
    },
  )
  // Before GET /{token}: Hono tries routes in the order they were added (a token is 15 digits, so
  // the route table of http/routing.ts never takes "export" for one either).
  .openapi(
    createRoute({
      method: 'get',
      path: '/export',
      operationId: 'exportScenarios',
      summary: 'Export scenarios',
      description:
        "Every scenario of the caller's account that matches the filters (the list's), newest first, streamed: JSON Lines " +
        '(one list item per line) or, with format=csv, one RFC 4180 summary row per scenario after a header row. A snapshot: ' +
        'nothing created after the export started appears, and no scenario appears twice or is skipped while others are saved or ' +
        'deleted. The key is checked on every page of ' + String(EXPORT_PAGE_SIZE) + ' rows: if it is revoked mid-export the ' +
        'transfer fails (it never ends as a short file); resume with starting_after = the id of the last line received. Read keys may export.',
      tags: ['Scenarios'],
      middleware: [apiKey('read')] as const,
      request: { query: ExportQuery },
      responses: documented(() => ({
        200: {
          description: 'The export, streamed (chunked); a transfer that ends without an error is complete',
          headers: successHeaders('api-key', 'Content-Disposition'),
          content: {
            'application/x-ndjson': {
              schema: z.string().max(EXPORT_MAX_BYTES).openapi({ description: 'One ScenarioListItem (JSON) per line, newest first; each line ends with \\n' }),
              // Getters, as jsonContent's: built when the document is generated, not at isolate start.
              get example() {
                return exampleExport().ndjson;
              },
              'x-line-schema': { $ref: '#/components/schemas/ScenarioListItem' },
            },
            'text/csv': {
              schema: z.string().max(EXPORT_MAX_BYTES).openapi({ description: `A header row, then one row per scenario, newest first; columns ${CSV_COLUMNS.join(', ')} (programs joined by ;); CRLF line ends` }),
              get example() {
                return exampleExport().csv;
              },
            },
          },
        },
        ...problemResponses('api-key', 'invalid_query'),
      })),
    }),
    async (c) => {
      const keyed = c.get('keyed');
      const query = c.req.valid('query');
      const format = query.format ?? 'ndjson';
      const requestId = c.get('requestId');
      const stream = await exportScenarios(keyed, {
        filter: toFilter(query),
        format,
        startingAfter: query.starting_after === undefined ? undefined : Number(query.starting_after),
        retentionDays: readConfig(c.env).retentionDays,
        onError: (error) => log('error', 'export stopped', { request_id: requestId, reason: exportStopReason(error) }),
      });
      return c.body(stream, 200, { 'Content-Type': EXPORT_CONTENT_TYPES[format], 'Content-Disposition': exportDisposition(format, keyed.key.now) });
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/',
      operationId: 'createScenario',
      summary: 'Create a scenario',
      description:
        'Generates the token. With an Idempotency-Key, a retry returns the first reply (marked Idempotent-Replayed) instead of ' +
        'creating twice, for 24 hours per account; the same key with a different body is 422 idempotency_conflict. Racing ' +
        'retries all get the first reply, so the 409 of the Idempotency-Key draft does not occur.',
      tags: ['Scenarios'],
      middleware: [apiKey('write'), jsonWriteChecks] as const,
      request: {
        headers: z.object({
          'idempotency-key': z
            .string()
            .min(1)
            .max(255)
            .optional()
            .openapi({ description: 'Any opaque string up to 255 characters, new for each create (a UUID, say)' }),
        }),
        body: { required: true, content: jsonContent(CreateScenarioBodySchema, exampleCreateBody) },
      },
      responses: documented(() => ({
        201: {
          description: 'Created (or the replay of an earlier create with the same Idempotency-Key)',
          headers: successHeaders('api-key', 'Location', 'ETag', 'Idempotent-Replayed'),
          content: jsonContent(ScenarioResponseSchema, () => exampleScenario()),
        },
        ...problemResponses('api-key', 'forbidden', 'invalid_json', 'invalid_header', 'validation_failed', 'idempotency_conflict', 'quota_exceeded', 'payload_too_large', 'insufficient_storage'),
      })),
    }),
    async (c) => {
      const input = dataOf(c.req.valid('json'));
      const idempotencyKey = c.req.valid('header')['idempotency-key'];
      const idempotency = idempotencyKey === undefined ? undefined : { key: idempotencyKey, requestHash: await sha256Hex(JSON.stringify(input)) };
      const eventId = newEventId();
      const created = await createScenario(c.get('keyed'), input, eventId, idempotency, readConfig(c.env).accountMaxScenarios);
      if (!created.replayed) queueEvent(c, eventId);
      created.body.data.chart_img = await chartUrl(c, created.token);
      // A replay names the version its first reply named: 1.
      const headers = { Location: `${requestOrigin(c)}/scenarios/${created.token}`, ETag: etagFor(1) };
      return c.json(created.body, 201, created.replayed ? { ...headers, 'Idempotent-Replayed': 'true' } : headers);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{token}',
      operationId: 'viewScenario',
      summary: 'View a scenario',
      description:
        "The caller's scenario with that token, with a freshly signed chart_img; another account's token is 404 like an unknown " +
        'one. The ETag names the stored version: send it as If-None-Match to get 304 while nothing changed.',
      tags: ['Scenarios'],
      middleware: [apiKey('read'), noQueryParameters] as const,
      request: {
        params: TokenParams,
        headers: z.object({ 'if-none-match': conditionalHeader('ETags from earlier replies (e.g. "v3"), or *') }),
      },
      responses: documented(() => ({
        200: {
          description: 'The scenario',
          headers: successHeaders('api-key', 'ETag'),
          content: jsonContent(ScenarioResponseSchema, () => exampleScenario()),
        },
        304: { description: 'Not modified since the ETag given in If-None-Match', headers: successHeaders('api-key', 'ETag') },
        ...problemResponses('api-key', 'not_found'),
      })),
    }),
    async (c) => {
      const { token } = c.req.valid('param');
      const keyed = c.get('keyed');
      const scenario = await viewScenario(keyed, token);
      const etag = etagFor(scenario.version);
      if (noneMatchHits(c.req.valid('header')['if-none-match'], etag)) return c.body(null, 304, { ETag: etag });
      const expired = expiredAt(scenario.updatedAt, readConfig(c.env).retentionDays, keyed.key.now);
      return c.json({ data: toScenarioForm(scenario, expired, await chartUrl(c, token)) }, 200, { ETag: etag });
    },
  );

function saveRoute<M extends 'post' | 'put'>(method: M) {
  return createRoute({
    method,
    path: '/save',
    operationId: method === 'post' ? 'saveScenario' : 'saveScenarioPut',
    summary: method === 'post' ? 'Save a scenario' : 'Save a scenario (PUT alias)',
    description:
      "Replaces the data of the caller's scenario with that token (another account's token is 404). With If-Match, only if it " +
      'is still that version (else 412, with the current ETag); without it, the last write wins. Saving renews an expired scenario.',
    tags: ['Scenarios'],
    middleware: [apiKey('write'), jsonWriteChecks] as const,
    request: {
      headers: z.object({ 'if-match': conditionalHeader('The ETag the change is based on (e.g. "v3"), or * for "if it exists"') }),
      body: { required: true, content: jsonContent(SaveScenarioBodySchema, exampleSaveBody) },
    },
    responses: documented(() => ({
      200: {
        description: 'Saved',
        headers: successHeaders('api-key', 'ETag'),
        content: jsonContent(ScenarioResponseSchema, exampleSaved),
      },
      ...problemResponses('api-key', 'forbidden', 'not_found', 'invalid_json', 'invalid_header', 'validation_failed', 'precondition_failed', 'payload_too_large', 'insufficient_storage'),
    })),
  });
}

const saveHandler = async (c: Context<AppEnv>, body: z.infer<typeof SaveScenarioBodySchema>, ifMatch: string | undefined) => {
  const token = String(body.token);
  const versions = ifMatchVersions(ifMatch);
  const eventId = newEventId();
  const keyed = c.get('keyed');
  const { revisionsKept, retentionDays } = readConfig(c.env);
  const saved = await saveScenario(keyed, token, dataOf(body), eventId, versions, revisionsKept);
  queueEvent(c, eventId);
  const expired = expiredAt(saved.scenario.updatedAt, retentionDays, keyed.key.now);
  return { body: { data: toScenarioForm(saved.scenario, expired, await chartUrl(c, token)) }, etag: etagFor(saved.scenario.version) };
};

function deleteRoute<P extends '/{token}/delete' | '/{token}'>(path: P) {
  return createRoute({
    method: 'delete',
    path,
    operationId: path === '/{token}' ? 'deleteScenarioAlias' : 'deleteScenario',
    summary: path === '/{token}' ? 'Delete a scenario (alias)' : 'Delete a scenario',
    description: 'Removes the scenario and everything attached to it, permanently; a second delete is 404.',
    tags: ['Scenarios'],
    middleware: [apiKey('write'), noQueryParameters] as const,
    request: { params: TokenParams },
    responses: documented(() => ({
      200: {
        description: 'Deleted',
        headers: successHeaders('api-key'),
        content: jsonContent(ScenarioDeletionSchema, exampleDeletion),
      },
      ...problemResponses('api-key', 'forbidden', 'not_found'),
    })),
  });
}

// One chain, not a loop of `.openapi()` calls: only chained routes are in the exported type, and
// so in AppType and Hono's typed client (`hc`). Registered in the same order as before.
export const scenarioRoutes = listCreateViewRoutes
  .openapi(saveRoute('post'), async (c) => {
    const { body, etag } = await saveHandler(c, c.req.valid('json'), c.req.valid('header')['if-match']);
    return c.json(body, 200, { ETag: etag });
  })
  .openapi(saveRoute('put'), async (c) => {
    const { body, etag } = await saveHandler(c, c.req.valid('json'), c.req.valid('header')['if-match']);
    return c.json(body, 200, { ETag: etag });
  })
  .openapi(deleteRoute('/{token}/delete'), async (c) => {
    const { token } = c.req.valid('param');
    await removeScenario(c, token);
    return c.json(toDeletion(token), 200);
  })
  .openapi(deleteRoute('/{token}'), async (c) => {
    const { token } = c.req.valid('param');
    await removeScenario(c, token);
    return c.json(toDeletion(token), 200);
  });

async function removeScenario(c: Context<AppEnv>, token: string): Promise<void> {
  const eventId = newEventId();
  await deleteScenario(c.get('keyed'), token, eventId);
  queueEvent(c, eventId);
}
