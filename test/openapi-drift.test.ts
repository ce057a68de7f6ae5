// The committed OpenAPI document (openapi/openapi.json, which client/schema.d.ts and other clients
// are generated from) must be the one the Worker serves. A route change without `npm run openapi`
// fails here, with the difference.
import { describe, expect, it } from 'vitest';
import committed from '../openapi/openapi.json';
import { openApiDocument } from '../src/app.ts';
import { api } from './helpers/api.ts';

/** The document as JSON carries it (no undefined members), without `servers`, which names where it runs. */
function comparable(document: object): Record<string, unknown> {
  const { servers: _servers, ...rest } = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  return rest;
}

const STALE = 'openapi/openapi.json is out of date: run `npm run openapi` and commit openapi/ and client/';

describe('openapi/openapi.json', () => {
  it('is the document built from the route definitions', () => {
    expect(comparable(committed), STALE).toEqual(comparable(openApiDocument()));
  });

  it('is the document the Worker serves at /openapi.json', async () => {
    const served = await api().get('/openapi.json');
    expect(served.status).toBe(200);
    expect(comparable(committed), STALE).toEqual(comparable(served.body));
  });
});
