// The admin API's app: its routes (routes.ts) under /admin, on the middleware and error handlers
// the API's app has (src/service-app.ts), so every reply, a 404 or 405 under /admin included, is
// the one the API Worker gave when it served these routes itself.
import { serveErrors, serviceApp } from '../../src/service-app.ts';
import { adminRoutes } from './routes.ts';

export const adminApp = serviceApp();
adminApp.route('/admin', adminRoutes);

/** The admin API's routes, for its 404/405 and the contract tests (the API's are src/app.ts `routeTable`). */
export const adminRouteTable = serveErrors(adminApp);
