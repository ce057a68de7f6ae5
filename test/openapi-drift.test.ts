// The OpenAPI document exists in three copies that must be one: as the route definitions make it
// (generated under Node with the real @hono/zod-openapi when the tests start, vitest.config.ts),
// committed as openapi/openapi.json (which client/schema.d.ts and other clients are generated
// from), and in src/http/openapi-document.generated.ts, which the Worker serves at /openapi.json.
// A route change without `npm run openapi` fails here, with the difference.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import committed from '../openapi/openapi.json';
import { openApiDocument } from '../src/app.ts';
import { api } from './helpers/api.ts';

/** The document as JSON carries it (no undefined members), without `servers`, which names where it runs. */
function comparable(document: object): Record<string, unknown> {
  const { servers: _servers, ...rest } = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  return rest;
}

const STALE = 'out of date: run `npm run openapi` and commit openapi/, client/ and src/http/openapi-document.generated.ts';
const fromRoutes = JSON.parse(env.OPENAPI_FROM_ROUTES) as object;

describe('the OpenAPI document', () => {
  it('committed (openapi/openapi.json) is the one the route definitions make', () => {
    expect(comparable(committed), `openapi/openapi.json is ${STALE}`).toEqual(comparable(fromRoutes));
  });

  it('in the Worker (src/http/openapi-document.generated.ts) is the one the route definitions make, byte for byte', async () => {
    const inWorker = await openApiDocument();
    expect(comparable(inWorker), `src/http/openapi-document.generated.ts is ${STALE}`).toEqual(comparable(fromRoutes));
    // Key order too: what /openapi.json sends.
    expect(JSON.stringify(inWorker) === env.OPENAPI_FROM_ROUTES, `src/http/openapi-document.generated.ts is ${STALE}`).toBe(true);
  });

  it('is what the Worker serves at /openapi.json', async () => {
    const served = await api().get('/openapi.json');
    expect(served.status).toBe(200);
    expect(comparable(served.body)).toEqual(comparable(fromRoutes));
  });
});
