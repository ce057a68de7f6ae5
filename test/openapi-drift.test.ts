// The OpenAPI document exists in three copies that must be one: as the route definitions make it
// (generated under Node with the real @hono/zod-openapi when the tests start, vitest.config.ts),
// committed (which client/schema*.d.ts and other clients are generated from), and in
// src/versions/openapi-document.generated.ts, which the Worker serves at /openapi.json. Each API
// version has its own: the routes make the newest (openapi/openapi.2026-12-01.json); the older
// one is the newest with its later changes' document parts put back (openapi/openapi.json, the
// specification's 2026-11-21). A route change without `npm run openapi` fails here, with the difference.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import committedSpec from '../openapi/openapi.json';
import committedNewest from '../openapi/openapi.2026-12-01.json';
import { openApiDocument } from '../src/app.ts';
import { applyParts } from '../src/versions/document.ts';
import { documentPartsFor } from '../src/versions/documents.ts';
import { api } from './helpers/api.ts';

/** The document as JSON carries it (no undefined members), without `servers`, which names where it runs. */
function comparable(document: object): Record<string, unknown> {
  const { servers: _servers, ...rest } = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  return rest;
}

const STALE = 'out of date: run `npm run openapi` and commit openapi/, client/ and src/versions/openapi-document.generated.ts';
const fromRoutes = JSON.parse(env.OPENAPI_FROM_ROUTES) as object;

const fromRoutesSpec = applyParts(structuredClone(fromRoutes), documentPartsFor('2026-11-21'));

describe('the OpenAPI document', () => {
  it('committed (openapi/openapi.2026-12-01.json, the newest) is the one the route definitions make', () => {
    expect(comparable(committedNewest), `openapi/openapi.2026-12-01.json is ${STALE}`).toEqual(comparable(fromRoutes));
  });

  it('committed for 2026-11-21 (openapi/openapi.json) is the newest with its changes put back', () => {
    expect(comparable(committedSpec), `openapi/openapi.json is ${STALE}`).toEqual(comparable(fromRoutesSpec));
  });

  it('in the Worker (src/versions/openapi-document.generated.ts) is the one the route definitions make, byte for byte', async () => {
    const inWorker = await openApiDocument();
    expect(comparable(inWorker), `src/versions/openapi-document.generated.ts is ${STALE}`).toEqual(comparable(fromRoutes));
    // Key order too: what /openapi.json sends.
    expect(JSON.stringify(inWorker) === env.OPENAPI_FROM_ROUTES, `src/versions/openapi-document.generated.ts is ${STALE}`).toBe(true);
    expect(comparable(await openApiDocument('2026-11-21')), `src/versions/openapi-document.generated.ts is ${STALE}`).toEqual(comparable(fromRoutesSpec));
  });

  it('is what the Worker serves at /openapi.json: DEFAULT_API_VERSION, or the one ?api_version= names', async () => {
    const served = await api().get('/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('API-Version')).toBe('2026-11-21');
    expect(comparable(served.body)).toEqual(comparable(fromRoutesSpec));
    const newest = await api().get('/openapi.json?api_version=2026-12-01');
    expect(newest.headers.get('API-Version')).toBe('2026-12-01');
    expect(comparable(newest.body)).toEqual(comparable(fromRoutes));
    expect(comparable((await api().get('/openapi.json?api_version=2026-11-21')).body)).toEqual(comparable(fromRoutesSpec));
  });

  it('refuses an unknown ?api_version= with 400 invalid_query naming the versions', async () => {
    const res = await api().get('/openapi.json?api_version=2025-01-01');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
    expect(res.body.errors[0].path).toBe('api_version');
    expect(res.body.errors[0].message).toContain('2026-12-01, 2026-11-21');
  });
});
