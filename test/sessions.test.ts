// D1 Sessions API: replies carry the session bookmark; sending it back keeps read-your-writes
// when reads are served by replicas (locally there is one copy, so this tests the round trip).
import { describe, expect, it } from 'vitest';
import { api, createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';

const BOOKMARK = /^[0-9A-Za-z-]{1,256}$/;

describe('D1 session bookmarks', () => {
  it('returns X-D1-Bookmark on replies that touched the database', async () => {
    const { key } = await createAccountWithKey();
    const res = await api(key).get('/me');
    expect(res.headers.get('X-D1-Bookmark')).toMatch(BOOKMARK);
  });

  it('accepts the bookmark of a write on the next read, which then sees the write', async () => {
    const { key } = await createAccountWithKey();
    const created = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    const bookmark = created.headers.get('X-D1-Bookmark');
    expect(bookmark).toMatch(BOOKMARK);
    const view = await api(key, { 'X-D1-Bookmark': bookmark! }).get(`/scenarios/${created.body.data.scenario.token}`);
    expect(view.status).toBe(200);
    // Bookmarks only move forward: the read's is at least as new as the write's.
    expect(view.headers.get('X-D1-Bookmark')! >= bookmark!).toBe(true);
  });

  it('ignores a malformed bookmark instead of failing the request', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const res = await api(key, { 'X-D1-Bookmark': 'not a bookmark!' }).get(`/scenarios/${token}`);
    expect(res.status).toBe(200);
  });

  it('lets browsers send and read the bookmark (CORS)', async () => {
    const preflight = await api().send('OPTIONS', '/scenarios', {
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-d1-bookmark' },
    });
    expect(preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('x-d1-bookmark');
    const { key } = await createAccountWithKey();
    const res = await api(key, { Origin: 'https://app.example' }).get('/me');
    expect(res.headers.get('Access-Control-Expose-Headers')).toContain('X-D1-Bookmark');
  });
});
