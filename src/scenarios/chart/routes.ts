// GET /scenarios/{token}/chart.svg?exp=&sig= — the chart behind chart_img. No API key: the signed
// URL is the credential, and it names the account, so the lookup stays account-scoped.
import { databaseOfId } from '../../db/databases.ts';
import { accountMovedTo } from '../../db/moves.ts';
import { useDatabase } from '../../http/middleware.ts';
import * as z from 'zod';
import { createRoute, OpenAPIHono } from '../../http/zod-openapi-runtime.ts';
import { findScenarioOfAccount } from '../../db/scenarios.ts';
import type { AppEnv } from '../../env.ts';
import { documented, headers, problemResponses } from '../../http/openapi.ts';
import { ApiError } from '../../http/problem.ts';
import { validationHook } from '../../http/validation.ts';
import type { StoredScenarioData } from '../data.ts';
import { ScenarioToken } from '../params.ts';
import { findState } from '../states.ts';
import { renderScenarioChart } from './render.ts';
import { verifyChartSignature } from './signing.ts';

export const chartRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/{token}/chart.svg',
    operationId: 'getChart',
    summary: 'Chart of a scenario (signed URL)',
    description:
      "Each adult's monthly income by source, with the household total, as SVG. Use the chart_img URL of a view, create or save " +
      'reply as given: it needs no API key (the signature is the credential, scoped to one account and one scenario) and ' +
      'expires (CHART_URL_TTL_SECONDS). A missing, wrong or expired signature is 403; only the exact spelling of chart_img ' +
      'verifies. Other query parameters are refused (400).',
    tags: ['Scenarios'],
    security: [],
    request: {
      params: z.object({ token: ScenarioToken }),
      // Checked by the signature, not the schema: a malformed value is 403 like a wrong one, so these
      // bounds describe valid values without refusing others differently. Other parameters are 400.
      query: z.strictObject({
        exp: z
          .string()
          .optional()
          .openapi({ description: 'Expiry, unix seconds (no leading zero)', maxLength: 12, pattern: '^[1-9][0-9]{0,11}$', example: '1795252443' }),
        sig: z
          .string()
          .optional()
          .openapi({
            description: 'Signature: the account id, a dot, and the base64url HMAC-SHA256 (unpadded, canonical: exactly as chart_img has it)',
            maxLength: 60,
            pattern: '^[1-9][0-9]{0,15}\\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$',
            example: '7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s',
          }),
      }),
    },
    responses: documented(() => ({
      200: {
        description: 'The chart',
        headers: headers(),
        // 20 adults with the longest names and amounts render to about 52 000 characters.
        content: { 'image/svg+xml': { schema: documented(() => z.string().max(131_072).openapi({ description: 'An SVG document' })) } },
      },
      ...problemResponses('public', 'invalid_query', 'forbidden', 'not_found'),
    })),
  }),
  async (c) => {
    const { token } = c.req.valid('param');
    const { exp, sig } = c.req.valid('query');
    const now = Date.now();
    const check = await verifyChartSignature(c.env, token, exp, sig, now);
    if (!check.ok) throw new ApiError('forbidden', check.reason);
    // The signed account id names the database that holds the scenario (src/db/databases.ts).
    let row = useDatabase(c, databaseOfId(check.accountId)) ? await findScenarioOfAccount(c.get('db'), check.accountId, token) : null;
    // Not there: the account may have been moved (its forwarding names where; one more round trip).
    const movedTo = row ? null : useDatabase(c, databaseOfId(check.accountId)) ? await accountMovedTo(c.get('db'), check.accountId) : null;
    if (movedTo !== null && useDatabase(c, movedTo)) row = await findScenarioOfAccount(c.get('db'), check.accountId, token);
    if (!row) throw new ApiError('not_found', 'No scenario with that token');
    const data = JSON.parse(row.scenarioData) as StoredScenarioData;
    const svg = renderScenarioChart(data, findState(row.stateId)?.name ?? '');
    const maxAge = Math.max(0, Number(exp) - Math.floor(now / 1000));
    return c.body(svg, 200, {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Cache-Control': `private, max-age=${maxAge}`,
      // An SVG opened directly must not run anything.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
    });
  },
);
