// The admin API in a Worker of its own (admin/wrangler.toml; docs/decisions.md, "The admin API in a
// Worker of its own"): the API Worker hands it every request its app used to answer from the admin
// routes or their 404/405, and answers nothing under /admin itself.
import { describe, expect, it } from 'vitest';
import { adminRouteTable } from '../admin/src/app.ts';
import { routeTable } from '../src/app.ts';
import { servedElsewhere } from '../src/index.ts';
import { ADMIN_TOKEN, admin, api, uniqueEmail } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';

describe('which Worker serves a request', () => {
  it('the admin Worker: /admin and every path under it, as the router reads the path', () => {
    for (const path of ['/admin', '/admin/', '/admin?x=1', '/admin/accounts', '/admin/keys/7/roll?a=b', '//admin/accounts', '/%61dmin/accounts']) {
      expect(servedElsewhere(`https://scenarios.test${path}`), path).toBe('ADMIN');
    }
  });

  it('the dashboard Worker: /dashboard and every path under it', () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard?x', '/dashboard/keys']) expect(servedElsewhere(`https://scenarios.test${path}`), path).toBe('DASHBOARD');
  });

  it("the API's own app: everything else, a path that only begins like /admin included", () => {
    for (const path of ['', '/', '/me', '/adminx', '/admins/accounts', '/scenarios/admin', '/me?next=/admin', '/x/%61dmin', '/admin%2F/x', '/dashboardx', '/api_versions']) {
      expect(servedElsewhere(`https://scenarios.test${path}`), path).toBeUndefined();
    }
  });

  it("no route of the API's app could take a path under /admin, so its 404 and 405 there were the admin routes' all along", () => {
    for (const route of routeTable()) {
      const first = route.segments[0];
      expect(first !== undefined && 'literal' in first && first.literal !== 'admin', `${route.method} ${route.path}`).toBe(true);
    }
    expect(adminRouteTable().every((route) => route.path.startsWith('/admin/'))).toBe(true);
  });
});

describe('through the API Worker', () => {
  it('answers the admin API, its 404 and 405, on paths the router reads as /admin', async () => {
    expect((await admin().post('/%61dmin/accounts', { name: 'Encoded', email: uniqueEmail() })).status).toBe(201);
    const doubled = await api(ADMIN_TOKEN).get('//admin/accounts');
    expectProblem(doubled, 405, 'method_not_allowed');
    expect(doubled.headers.get('Allow')).toBe('POST');
    expectProblem(await api(ADMIN_TOKEN).get('/admin/accounts/x/keys'), 404, 'not_found');
  });
});
