// What a version change is: one change to the API's shapes, kept as code for as long as any
// version before it is served (Stripe's "version change modules"; Cadwyn's and Autumn's version
// changes). Routes and workflows build only the newest shapes; the version layer (./layer.ts)
// turns a reply into an older version by undoing, newest first, every change made since it, and
// an older request into the newest by applying them, oldest first. Nothing else knows versions.
import type { ApiError } from '../http/problem.ts';

/**
 * An operation, as the router names it: its method and its route's path in Hono's form
 * (`GET /scenarios/:token`). The layer finds a reply's operation from the route that answered it.
 */
export type Operation = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/** A JSON reply body, as the route built it: the transform may change it in place and return it. */
export type ReplyTransform = (body: any) => unknown;

/**
 * A part of the OpenAPI document as the version before a change had it: replaced at `pointer`
 * (RFC 6901), or removed when `value` is undefined. Each change's parts are in the file beside it,
 * `<change>.document.ts`, read when the documents are generated (`npm run openapi`), not by the Worker.
 */
export interface DocumentPart {
  pointer: string;
  value?: unknown;
}

/** The request side of a change: an old form of a request that the newest version refuses. */
export interface RequestChange {
  /** The operations whose requests may take the old form. */
  operations: readonly Operation[];
  /** Whether the request's URL uses the old form. */
  uses(url: URL): boolean;
  /** The request in the newest form (`url` changed in place); throws the old version's error for a request it refused. */
  upgrade(url: URL): void;
  /** What the versions with this change answer a request in the old form. */
  refusal(): ApiError;
}

export interface VersionChange {
  /** The changelog's title of the change. */
  title: string;
  /** What changed and why, for the changelog. */
  description: string;
  /** Reply transforms by operation: the newest reply (as the later changes left it) into the form before this change. */
  replies: Partial<Record<Operation, ReplyTransform>>;
  /** Requests: the old form into the newest. Absent when requests are the same on both sides. */
  request?: RequestChange;
}

/** A change, typed (a function so that each module reads as a declaration). */
export function defineChange(change: VersionChange): VersionChange {
  return change;
}
