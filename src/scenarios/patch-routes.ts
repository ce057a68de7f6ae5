// PATCH /scenarios/{token}: a JSON Merge Patch (RFC 7396) or JSON Patch (RFC 6902) of scenario_data,
// validated like a save's data, guarded against a concurrent save (workflows.ts patchScenario),
// answered exactly like a save. A sub-app of its own, mounted at /scenarios beside the others.
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../http/zod-openapi-runtime.ts';
import type { Context } from 'hono';
import { apiKey } from '../auth/bearer.ts';
import { assertCanSignCharts, chartUrl } from './chart/signing.ts';
import { readConfig, type AppEnv } from '../env.ts';
import { decodeStrictUtf8Json } from '../http/body.ts';
import { refuseInput, routeChecks } from '../http/checks.ts';
import { conditionalHeader, etagFor, ifMatchVersions } from '../http/conditional.ts';
import { documented, jsonContent, problemResponses, successHeaders } from '../http/openapi.ts';
import { ApiError } from '../http/problem.ts';
import { refuseQueryParameters } from '../http/query.ts';
import { RouteMissError } from '../http/routing.ts';
import { validationHook } from '../http/validation.ts';
import { queueEvent } from '../webhooks/producer.ts';
import { exampleSaved } from './examples.ts';
import { ScenarioResponseSchema, toScenarioForm } from './forms.ts';
import { expiredAt } from './retention.ts';
import { TokenParams } from './params.ts';
import { TOKEN_PATTERN } from './schema.ts';
import { ACCEPT_PATCH, applyPatchDocument, JSON_PATCH, JsonPatchSchema, MERGE_PATCH, MergePatchSchema, patchFormatOf, readPatch, validatePatched } from './patch.ts';
import { newEventId, patchScenario } from './workflows.ts';

/**
 * 415 with Accept-Patch for a body that is neither patch format. A path whose token cannot be one
 * (PATCH /scenarios/save) is first the 404/405 the route table gives, as its validator would say.
 */
function requirePatchFormat(c: Context<AppEnv>): void {
  if (!TOKEN_PATTERN.test(c.req.param('token') ?? '')) throw new RouteMissError();
  if (patchFormatOf(c.req.header('Content-Type')) !== null) return;
  throw new ApiError('unsupported_media_type', `Send the patch as Content-Type: ${MERGE_PATCH} (RFC 7396) or ${JSON_PATCH} (RFC 6902)`, {
    headers: { 'Accept-Patch': ACCEPT_PATCH },
  });
}

const patchChecks = routeChecks(refuseQueryParameters, requirePatchFormat, decodeStrictUtf8Json, assertCanSignCharts);

const routesBase = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
// The two documents' schemas, as components the request body refers to. Referred to, not given as
// the body's schemas: the validator would otherwise hold every body to both (the route picks one
// by Content-Type, readPatch).
routesBase.openAPIRegistry.register('MergePatch', MergePatchSchema);
routesBase.openAPIRegistry.register('JsonPatch', JsonPatchSchema);

export const patchRoutes = routesBase.openapi(
  createRoute({
    method: 'patch',
    path: '/{token}',
    operationId: 'patchScenario',
    summary: 'Patch a scenario',
    description:
      "Changes part of the caller's scenario: scenario_data as the detail form shows it, patched by an RFC 7396 merge patch " +
      `(${MERGE_PATCH}) or an RFC 6902 JSON Patch (${JSON_PATCH}); other types are 415 with Accept-Patch. The result is ` +
      'validated like a save (422 listing every problem, under scenario_data); the token cannot be changed. To move the ' +
      'household to another state, patch `state`. A JSON Patch applies whole or not at all; a failed `test` is 409. With ' +
      'If-Match, only if it is still that version (else 412). A save that lands while the patch is applied is never ' +
      'overwritten: the patch is applied again on top of it. Records a revision and a scenario.saved event; answers like a save.',
    tags: ['Scenarios'],
    middleware: [apiKey('write'), patchChecks] as const,
    request: {
      params: TokenParams,
      headers: z.object({ 'if-match': conditionalHeader('The ETag the change is based on (e.g. "v3"), or * for "if it exists"') }),
      body: {
        required: true,
        content: {
          [MERGE_PATCH]: { schema: { $ref: '#/components/schemas/MergePatch' }, example: { year: 2027, programs: ['snap', 'eitc', 'ctc'] } },
          [JSON_PATCH]: {
            schema: { $ref: '#/components/schemas/JsonPatch' },
            example: [
              { op: 'test', path: '/adult/0/wage_rate', value: '18.50' },
              { op: 'replace', path: '/adult/0/wage_rate', value: '21.00' },
            ],
          },
        },
      },
    },
    responses: documented(() => ({
      200: {
        description: 'Patched (a new version, as a save makes)',
        headers: successHeaders('api-key', 'ETag'),
        content: jsonContent(ScenarioResponseSchema, exampleSaved),
      },
      ...problemResponses(
        'api-key',
        'forbidden',
        'not_found',
        'invalid_json',
        'invalid_header',
        ['conflict', 'JSON Patch operation 0 (test of /adult/0/wage_rate) failed: the scenario\'s data there is not the value given'],
        'precondition_failed',
        'payload_too_large',
        'insufficient_storage',
        ['unsupported_media_type', `Send the patch as Content-Type: ${MERGE_PATCH} (RFC 7396) or ${JSON_PATCH} (RFC 6902)`],
        'validation_failed',
      ),
    })),
  }),
  async (c) => {
    const { token } = c.req.valid('param');
    // The body was parsed by the checks (strict UTF-8, JSON); what is wrong with it, or with
    // If-Match, is refused after the key is judged, like any input problem.
    let ifMatch: number[] | undefined;
    let document: ReturnType<typeof readPatch>;
    try {
      ifMatch = ifMatchVersions(c.req.valid('header')['if-match']);
      document = readPatch(patchFormatOf(c.req.header('Content-Type'))!, await c.req.json());
    } catch (problem) {
      return refuseInput(c, problem);
    }
    const eventId = newEventId();
    const change = (current: Parameters<typeof applyPatchDocument>[0]) => validatePatched(applyPatchDocument(current, document), token);
    const keyed = c.get('keyed');
    const { revisionsKept, retentionDays } = readConfig(c.env);
    const saved = await patchScenario(keyed, token, change, eventId, ifMatch, revisionsKept);
    queueEvent(c, eventId);
    // A save's reply, built as a save builds it (the version layer turns it into the request's version).
    const expired = expiredAt(saved.scenario.updatedAt, retentionDays, keyed.key.now);
    return c.json({ data: toScenarioForm(saved.scenario, expired, await chartUrl(c, token)) }, 200, { ETag: etagFor(saved.scenario.version) });
  },
);
