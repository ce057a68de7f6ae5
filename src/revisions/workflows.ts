// What each revision request does with D1: one batch (one round trip) on the session it is given,
// the key check first (auth/with-key.ts). Nothing here knows HTTP; the routes validate, call one
// of these and shape the reply.
import { createPatch, type Operation } from 'rfc6902';
import type { Caller } from '../auth/key-check.ts';
import { withKey } from '../auth/with-key.ts';
import type { KeyCheck } from '../db/api-keys.ts';
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
import type { Session } from '../db/statement.ts';
import type { PageRequest } from '../http/pagination.ts';
import { ApiError } from '../http/problem.ts';
import { detailData } from '../scenarios/forms.ts';
import { notFound, staleVersion } from '../scenarios/workflows.ts';

const noRevision = (caller: Caller, version: number) =>
  new ApiError('not_found', `The scenario has no revision ${version} (never made, or pruned)`, { caller });

/** A page of a scenario's revisions, newest first (cursor: a version number). */
export async function listRevisions(session: Session, key: KeyCheck, token: string, page: PageRequest<number>) {
  const limit = page.limit + 1;
  const values = { ...key, token, limit };
  const query =
    page.endingBefore !== undefined
      ? revisionPageBefore(session, { ...values, cursor: page.endingBefore })
      : page.startingAfter !== undefined
        ? revisionPageAfter(session, { ...values, cursor: page.startingAfter })
        : firstRevisionPage(session, values);
  const { caller, results } = await withKey(session, key, 'read', [currentVersion(session, values), query]);
  if (!results[0]?.[0]) throw notFound(caller);
  const rows = (results[1] ?? []).map(toRevision);
  const hasMore = rows.length > page.limit;
  if (hasMore) rows.pop();
  if (page.endingBefore !== undefined) rows.reverse();
  return { caller, rows, hasMore };
}

/** One revision of the caller's scenario; 404 for an unknown scenario or version. */
export async function viewRevision(session: Session, key: KeyCheck, token: string, version: number) {
  const { caller, results } = await withKey(session, key, 'read', [
    currentVersion(session, { ...key, token }),
    revisionAt(session, { ...key, token, version }),
  ]);
  if (!results[0]?.[0]) throw notFound(caller);
  const row = results[1]?.[0];
  if (!row) throw noRevision(caller, version);
  return { caller, revision: toRevision(row) };
}

/**
 * The RFC 6902 patch that turns version `from`'s scenario_data into `to`'s (the current version
 * when `to` is omitted), both in the detail form.
 */
export async function diffRevisions(session: Session, key: KeyCheck, token: string, from: number, to?: number) {
  const { caller, results } = await withKey(session, key, 'read', [
    currentVersion(session, { ...key, token }),
    revisionAt(session, { ...key, token, version: from }),
    revisionAt(session, { ...key, token, version: to ?? null }),
  ]);
  const current = results[0]?.[0];
  if (!current) throw notFound(caller);
  const toVersion = to ?? (current.version as number);
  const [fromRow, toRow] = [results[1]?.[0], results[2]?.[0]];
  if (!fromRow) throw noRevision(caller, from);
  if (!toRow) throw noRevision(caller, toVersion);
  const patch = createPatch(detailData(toRevision(fromRow).scenarioData, token), detailData(toRevision(toRow).scenarioData, token));
  return { caller, from, to: toVersion, patch: patch.map(produced) };
}

/** The operations rfc6902's diff produces (it never moves, copies or tests). */
export type DiffOperation = Extract<Operation, { op: 'add' | 'remove' | 'replace' }>;

function produced(operation: Operation): DiffOperation {
  if (operation.op === 'add' || operation.op === 'remove' || operation.op === 'replace') return operation;
  throw new Error(`rfc6902 produced a ${operation.op} operation, which the documented diff does not have`);
}

export interface Restored {
  caller: Caller;
  scenario: Scenario;
  revision: RevisionRow;
}

/**
 * POST /scenarios/{token}/revisions/{version}/restore: the revision's data becomes a new version,
 * recorded like a save (event `scenario.saved`, its own revision, pruning), in one batch. The
 * event, the row and the revision read back tell restored, 404 (scenario or revision) and 412 apart.
 */
export async function restoreRevision(
  session: Session,
  key: KeyCheck,
  token: string,
  version: number,
  eventId: string,
  versions: number[] | undefined,
  revisionsKept: number,
): Promise<Restored> {
  const values = { ...key, token, version, eventId, kept: revisionsKept };
  const { caller, results } = await withKey(session, key, 'write', [
    restoreStatement(session, { ...values, versions: versions ? JSON.stringify(versions) : null }),
    recordSaved(session, values),
    recordRevision(session, values),
    pruneRevisions(session, values),
    scenarioByToken(session, values),
    eventById(session, values),
    revisionAt(session, values),
  ]);
  const row = results[4]?.[0];
  if (!row) throw notFound(caller);
  const event = results[5]?.[0];
  const revision = results[6]?.[0];
  if (event) {
    // Restored, now or on an earlier try: answer with the data restored and the version it made.
    // (If 100 saves since pruned that revision, the row read back is the best left to show.)
    const scenario = toScenario(row);
    const restored = revision ? toRevision(revision) : { version, stateId: scenario.stateId, scenarioData: scenario.scenarioData, createdAt: scenario.updatedAt };
    return { caller, scenario: { ...scenario, stateId: restored.stateId, scenarioData: restored.scenarioData, version: event.version as number }, revision: restored };
  }
  if (!revision) throw noRevision(caller, version);
  throw staleVersion(caller, row.version as number);
}
