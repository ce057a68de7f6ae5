// A scenario's history rebuilt from how it is stored (docs/decisions.md, "Compact history"): the
// current data whole, and for each older version a reverse patch, what to set (and remove) in the
// next newer version's data to get its own (drizzle/0013_revision_patches_only.sql makes them).
// Walking down from the current data, applying each patch, gives every version's data in turn.
// Pure: the workflows fetch the rows.
import type { StoredRevision } from '../db/revisions.ts';

/** A revision as the API shows it: its data whole. */
export interface RevisionRow {
  version: number;
  stateId: number;
  scenarioData: string;
  createdAt: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The revisions of `stored` (newest first, from the current version down, as the read statements
 * return them) with their data, starting from the current data. Stops at the first row that does
 * not follow the one before (no such gap is ever written; a row past one could not be rebuilt).
 */
export function rebuildRevisions(current: { version: number; data: string }, stored: StoredRevision[]): RevisionRow[] {
  const rebuilt: RevisionRow[] = [];
  let doc: Json | undefined;
  let expected = current.version;
  for (const row of stored) {
    if (row.version !== expected) break;
    let data = current.data;
    if (row.version !== current.version) {
      if (row.patch === null) break;
      doc = applyPatch(doc ?? (JSON.parse(current.data) as Json), JSON.parse(row.patch) as Operation[]);
      data = JSON.stringify(doc);
    }
    rebuilt.push({ version: row.version, stateId: row.stateId, scenarioData: data, createdAt: row.createdAt });
    expected--;
  }
  return rebuilt;
}

/** A patch's operations: [path, value] sets the value there, [path] removes what is there. */
type Operation = [string, Json] | [string];

/**
 * Applies a patch to `doc` (changed in place; the root path replaces it), its operations in order.
 * The last step of a path may be "[#]" (append to the array) or "[#-1]" (its last element).
 */
function applyPatch(doc: Json, patch: Operation[]): Json {
  for (const operation of patch) {
    const steps = parsePath(operation[0]);
    if (steps.length === 0) {
      doc = operation[1] as Json;
      continue;
    }
    let node = doc as Record<string | number, Json>;
    for (const step of steps.slice(0, -1)) node = node[step] as Record<string | number, Json>;
    const last = steps.at(-1)!;
    if (operation.length === 1) {
      if (last === '#-1') (node as unknown as Json[]).pop();
      else if (Array.isArray(node)) node.splice(last as number, 1);
      else delete node[last];
    } else if (last === '#') (node as unknown as Json[]).push(operation[1]);
    else node[last] = operation[1];
  }
  return doc;
}

/**
 * An SQLite JSON path as json_tree writes it (`$`, `.key`, `."quoted key"` holding the key as
 * the JSON text spelled it, `[index]`, and the patches' `[#]` and `[#-1]`) as its steps.
 */
export function parsePath(path: string): (string | number)[] {
  if (!path.startsWith('$')) throw new Error(`not a JSON path: ${path}`);
  const steps: (string | number)[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '[') {
      const end = path.indexOf(']', i);
      const index = path.slice(i + 1, end);
      steps.push(index.startsWith('#') ? index : Number(index));
      i = end + 1;
    } else if (path[i] === '.' && path[i + 1] === '"') {
      let end = i + 2;
      while (path[end] !== '"') end += path[end] === '\\' ? 2 : 1;
      steps.push(JSON.parse(path.slice(i + 1, end + 1)) as string);
      i = end + 1;
    } else if (path[i] === '.') {
      let end = i + 1;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      steps.push(path.slice(i + 1, end));
      i = end;
    } else {
      throw new Error(`not a JSON path: ${path}`);
    }
  }
  return steps;
}
