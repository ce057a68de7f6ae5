// What each revision request does with D1: one batch (one round trip) through the request's keyed
// path (auth/keyed.ts), statements by name. Nothing here knows HTTP; the routes validate, call one
// of these and shape the reply.
import { createPatch, type Operation } from 'rfc6902';
import type { Keyed } from '../auth/keyed.ts';
import {
  currentVersion,
  firstRevisionPage,
  pruneRevisions,
  recordRevision,
  restoreRevision as restoreStatement,
  revisionPageAfter,
  revisionPageBefore,
  revisionsDownTo,
  toStoredRevision,
} from '../db/revisions.ts';
import type { Scenario } from '../db/schema.ts';
import type { RawRow } from '../db/statement.ts';
import { eventById, recordSaved, scenarioByToken, toScenario } from '../db/scenarios.ts';
import type { PageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { notFound, staleVersion } from '../scenarios/workflows.ts';
import { rebuildRevisions, type RevisionRow } from './history.ts';

const noRevision = (version: number) => new ApiError('not_found', `The scenario has no revision ${version} (never made, or pruned)`);

/** Every revision `rows` hold, rebuilt from the current row (`current`; none: no such scenario). */
function rebuilt(current: RawRow[], rows: RawRow[]): RevisionRow[] {
  const [row] = current;
  if (!row) throw notFound();
  return rebuildRevisions({ version: row.version as number, data: row.scenario_data as string }, rows.map(toStoredRevision));
}

/** A page of a scenario's revisions, newest first (cursor: a version number). */
export async function listRevisions({ session, key, run }: Keyed, token: string, page: PageRequest<number>) {
  const limit = page.limit + 1;
  const values = { ...key, token, limit };
  const query =
    page.endingBefore !== undefined
      ? revisionPageBefore(session, { ...values, cursor: page.endingBefore })
      : page.startingAfter !== undefined
        ? revisionPageAfter(session, { ...values, cursor: page.startingAfter })
        : firstRevisionPage(session, values);
  const { rows } = await run({ current: currentVersion(session, values), page: query });
  const all = rebuilt(rows.current, rows.page);
  // The statements fetch the newer revisions a page is rebuilt from too: keep the page's own.
  const revisions =
    page.endingBefore !== undefined
      ? all.filter((r) => r.version > page.endingBefore!).slice(-limit)
      : page.startingAfter !== undefined
        ? all.filter((r) => r.version < page.startingAfter!)
        : all;
  const hasMore = revisions.length > page.limit;
  if (hasMore) page.endingBefore !== undefined ? revisions.shift() : revisions.pop();
  return { rows: revisions, hasMore };
}

/** One revision of the caller's scenario; 404 for an unknown scenario or version. */
export async function viewRevision({ session, key, run }: Keyed, token: string, version: number): Promise<RevisionRow> {
  const { rows } = await run({
    current: currentVersion(session, { ...key, token }),
    revisions: revisionsDownTo(session, { ...key, token, version }),
  });
  const found = rebuilt(rows.current, rows.revisions).find((r) => r.version === version);
  if (!found) throw noRevision(version);
  return found;
}

/**
 * The RFC 6902 patch that turns version `from`'s scenario_data into `to`'s (the current version
 * when `to` is omitted), both in the detail form.
 */
export async function diffRevisions({ session, key, run }: Keyed, token: string, from: number, to?: number) {
  const { rows } = await run({
    current: currentVersion(session, { ...key, token }),
    revisions: revisionsDownTo(session, { ...key, token, version: Math.min(from, to ?? from) }),
  });
  const all = rebuilt(rows.current, rows.revisions);
  const toVersion = to ?? (rows.current[0]!.version as number);
  const fromRow = all.find((r) => r.version === from);
  const toRow = all.find((r) => r.version === toVersion);
  if (!fromRow) throw noRevision(from);
  if (!toRow) throw noRevision(toVersion);
  // Both versions are the same scenario's, so the token never differs: the patch is the same in
  // every API version (whichever form its scenario_data.token takes).
  const patch = createPatch(JSON.parse(fromRow.scenarioData) as object, JSON.parse(toRow.scenarioData) as object);
  return { from, to: toVersion, patch: patch.map(produced) };
}

/** The operations rfc6902's diff produces (it never moves, copies or tests). */
export type DiffOperation = Extract<Operation, { op: 'add' | 'remove' | 'replace' }>;

function produced(operation: Operation): DiffOperation {
  if (operation.op === 'add' || operation.op === 'remove' || operation.op === 'replace') return operation;
  throw new Error(`rfc6902 produced a ${operation.op} operation, which the documented diff does not have`);
}

export interface Restored {
  scenario: Scenario;
  revision: RevisionRow;
}

/**
 * POST /scenarios/{token}/revisions/{version}/restore: the revision's data becomes a new version,
 * recorded like a save (event `scenario.saved`, its own revision, pruning), in one batch. The
 * event, the row and the revision read back tell restored, 404 (scenario or revision) and 412 apart.
 */
export async function restoreRevision(
  { session, key, run }: Keyed,
  token: string,
  version: number,
  eventId: string,
  versions: number[] | undefined,
  revisionsKept: number,
): Promise<Restored> {
  const values = { ...key, token, version, eventId, kept: revisionsKept };
  const { rows } = await run({
    restore: restoreStatement(session, { ...values, versions: versions ? JSON.stringify(versions) : null }),
    event: recordSaved(session, values),
    revision: recordRevision(session, values),
    pruned: pruneRevisions(session, values),
    current: scenarioByToken(session, values),
    outcome: eventById(session, values),
    restored: revisionsDownTo(session, values),
  });
  const [row] = rows.current;
  if (!row) throw notFound();
  const [event] = rows.outcome;
  const history = rebuildRevisions({ version: row.version as number, data: row.scenario_data as string }, rows.restored.map(toStoredRevision));
  const revision = history.find((r) => r.version === version);
  if (event) {
    // Restored, now or on an earlier try: answer with the data restored and the version it made
    // (the revision that version recorded). If 100 saves since pruned it, the row read back is the
    // best left to show.
    const scenario = toScenario(row);
    const made = history.find((r) => r.version === event.version) ?? revision;
    const restored = made ?? { version, stateId: scenario.stateId, scenarioData: scenario.scenarioData, createdAt: scenario.updatedAt };
    return { scenario: { ...scenario, stateId: restored.stateId, scenarioData: restored.scenarioData, version: event.version as number }, revision: restored };
  }
  if (!revision) throw noRevision(version);
  throw staleVersion(row.version as number);
}
