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
  revisionAt,
  revisionPageAfter,
  revisionPageBefore,
  toRevision,
  type RevisionRow,
} from '../db/revisions.ts';
import type { Scenario } from '../db/schema.ts';
import { eventById, recordSaved, scenarioByToken, toScenario } from '../db/scenarios.ts';
import type { PageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { notFound, staleVersion } from '../scenarios/workflows.ts';

const noRevision = (version: number) => new ApiError('not_found', `The scenario has no revision ${version} (never made, or pruned)`);

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
  if (rows.current.length === 0) throw notFound();
  const revisions = rows.page.map(toRevision);
  const hasMore = revisions.length > page.limit;
  if (hasMore) revisions.pop();
  if (page.endingBefore !== undefined) revisions.reverse();
  return { rows: revisions, hasMore };
}

/** One revision of the caller's scenario; 404 for an unknown scenario or version. */
export async function viewRevision({ session, key, run }: Keyed, token: string, version: number): Promise<RevisionRow> {
  const { rows } = await run({
    current: currentVersion(session, { ...key, token }),
    revision: revisionAt(session, { ...key, token, version }),
  });
  if (rows.current.length === 0) throw notFound();
  const [row] = rows.revision;
  if (!row) throw noRevision(version);
  return toRevision(row);
}

/**
 * The RFC 6902 patch that turns version `from`'s scenario_data into `to`'s (the current version
 * when `to` is omitted), both in the detail form.
 */
export async function diffRevisions({ session, key, run }: Keyed, token: string, from: number, to?: number) {
  const { rows } = await run({
    current: currentVersion(session, { ...key, token }),
    from: revisionAt(session, { ...key, token, version: from }),
    to: revisionAt(session, { ...key, token, version: to ?? null }),
  });
  const [current] = rows.current;
  if (!current) throw notFound();
  const toVersion = to ?? (current.version as number);
  const [fromRow] = rows.from;
  const [toRow] = rows.to;
  if (!fromRow) throw noRevision(from);
  if (!toRow) throw noRevision(toVersion);
  // Both versions are the same scenario's, so the token never differs: the patch is the same in
  // every API version (whichever form its scenario_data.token takes).
  const patch = createPatch(JSON.parse(toRevision(fromRow).scenarioData) as object, JSON.parse(toRevision(toRow).scenarioData) as object);
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
    restored: revisionAt(session, values),
  });
  const [row] = rows.current;
  if (!row) throw notFound();
  const [event] = rows.outcome;
  const [revision] = rows.restored;
  if (event) {
    // Restored, now or on an earlier try: answer with the data restored and the version it made.
    // (If 100 saves since pruned that revision, the row read back is the best left to show.)
    const scenario = toScenario(row);
    const restored = revision ? toRevision(revision) : { version, stateId: scenario.stateId, scenarioData: scenario.scenarioData, createdAt: scenario.updatedAt };
    return { scenario: { ...scenario, stateId: restored.stateId, scenarioData: restored.scenarioData, version: event.version as number }, revision: restored };
  }
  if (!revision) throw noRevision(version);
  throw staleVersion(row.version as number);
}
