// GET /openapi.json and GET /docs: public. That the document lists exactly the routes the app
// serves is in contract.test.ts.
import { describe, expect, it } from 'vitest';
import { api } from './helpers/api.ts';

describe('discovery', () => {
  it('serves an OpenAPI 3.1 document without a key', async () => {
    const res = await api().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers[0].url).toBe('http://scenario.test');
    expect(res.body.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await api().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(res.text).toContain('/docs/vendor/swagger-ui-bundle.js');
  });
});
