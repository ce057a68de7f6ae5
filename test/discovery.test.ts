// GET /openapi.json and GET /docs: public, and describing every route the app serves.
import { describe, expect, it } from 'vitest';
import { app } from '../src/app.ts';
import { api } from './helpers/api.ts';

describe('discovery', () => {
  it('serves an OpenAPI 3.1 document without a key', async () => {
    const res = await api().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers[0].url).toBe('http://scenario.test');
    expect(res.body.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents every API route the app serves, with {token} path parameters', async () => {
    const doc = (await api().get('/openapi.json')).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const served = [
      ...new Set(
        app.routes
          .filter((r) => r.method !== 'ALL' && !['/openapi.json', '/docs'].includes(r.path))
          .map((r) => `${r.method} ${r.path.replace(/:([a-z]+)/g, '{$1}')}`),
      ),
    ].sort();
    expect(documented).toEqual(served);
    expect(documented).toContain('GET /scenarios/{token}');
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await api().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(res.text).toContain('/docs/vendor/swagger-ui-bundle.js');
  });
});
