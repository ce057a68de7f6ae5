// A dashboard session of an account moved to another database (docs/decisions.md, "Moving an
// account"): its cookie still names the database it was made on, where its row is gone and a
// forwarding kept (src/db/moves.ts). A page that found no session there (it answers with the way
// to sign in) is looked up in the forwardings and, found, asked again on the account's database:
// two more round trips, until the person signs in again (a new session names the new database).
// The database travels to the second try in a header this Worker sets itself, after removing any
// the request came with.
import { secretMovedTo } from '../../src/db/moves.ts';
import { readDatabases } from '../../src/env.ts';
import { dashboardApp } from './app.ts';
import type { DashboardBindings } from './env.ts';
import { databaseOfSecret, hashSecret, SESSION_DATABASE_HEADER, sessionIdFrom } from './session.ts';
import { BASE } from './views.tsx';


const toSignIn = (response: Response) => response.status === 303 && response.headers.get('Location') === `${BASE}/sign-in`;

export async function serveDashboard(incoming: Request, env: DashboardBindings, ctx: ExecutionContext): Promise<Response> {
  const request = new Request(incoming);
  request.headers.delete(SESSION_DATABASE_HEADER);
  const sessionId = sessionIdFrom(request.headers.get('cookie') ?? undefined);
  // A form's body can be read once: a copy for a second try (forms are small).
  const spare = sessionId !== null && request.body !== null ? request.clone() : null;
  const response = await dashboardApp.fetch(request, env, ctx);
  if (sessionId === null || !toSignIn(response)) return response;
  const db = readDatabases(env)[databaseOfSecret(sessionId)];
  const movedTo = db ? await secretMovedTo(db, await hashSecret(sessionId)) : null;
  if (movedTo === null || !readDatabases(env)[movedTo]) return response;
  const again = new Request(spare ?? request);
  again.headers.set(SESSION_DATABASE_HEADER, String(movedTo));
  return dashboardApp.fetch(again, env, ctx);
}
