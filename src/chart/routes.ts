// GET /scenarios/{token}/chart.svg?exp=&sig= — the chart behind chart_img. No API key: the signed
// URL is the credential, and it names the account, so the lookup stays account-scoped.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { findScenario } from '../db/scenarios.ts';
import type { AppEnv } from '../env.ts';
import { problemResponses } from '../http/openapi.ts';
import { ApiError } from '../http/problem.ts';
import { validationHook } from '../http/validation.ts';
import type { StoredScenarioData } from '../scenarios/data.ts';
import { TOKEN_PATTERN } from '../scenarios/schema.ts';
import { findState } from '../scenarios/states.ts';
import { renderScenarioChart } from './render.ts';
import { verifyChartSignature } from './signing.ts';

export const chartRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/{token}/chart.svg',
    summary: 'Chart of a scenario (signed URL)',
    description: "Each adult's monthly income by source, with the household total. Use the chart_img URL as given.",
    tags: ['Scenarios'],
    security: [],
    request: {
      params: z.object({ token: z.string().regex(TOKEN_PATTERN).openapi({ param: { name: 'token', in: 'path' } }) }),
      query: z.object({
        exp: z.string().optional().openapi({ description: 'Expiry, unix seconds' }),
        sig: z.string().optional().openapi({ description: 'Signature' }),
      }),
    },
    responses: {
      200: { description: 'The chart', content: { 'image/svg+xml': { schema: z.string() } } },
      ...problemResponses('forbidden', 'not_found'),
    },
  }),
  async (c) => {
    const { token } = c.req.valid('param');
    const { exp, sig } = c.req.valid('query');
    const now = Date.now();
    const check = await verifyChartSignature(c.env, token, exp, sig, now);
    if (!check.ok) throw new ApiError('forbidden', check.reason);
    const row = await findScenario(c.get('db'), check.accountId, token);
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
