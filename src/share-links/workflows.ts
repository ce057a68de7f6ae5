// What each share-link request does with D1, as one batch (one round trip). The API's go through
// the request's keyed path (auth/keyed.ts); the public view runs on the database its secret names.
// A create's batch is written under the id its request drew and read back by it, a revoke keeps
// the first revocation time, so a batch D1 ran again after losing its reply answers as the first
// try would have and writes nothing twice. Nothing here knows HTTP.
import type { Keyed } from '../auth/keyed.ts';
import { sha256Hex } from '../auth/api-key.ts';
import { runBatch } from '../db/execute.ts';
import type { ShareLink } from '../db/schema.ts';
import {
  countShareView,
  insertShareLink,
  liveShareLinkCount,
  revokeShareLink as revokeStatement,
  shareLinkOf,
  shareLinksOf,
  sharedScenario,
  toShareLink,
  toSharedRow,
} from '../db/share-links.ts';
import { throttleOf } from '../db/auth-throttles.ts';
import { secretForwarding } from '../db/moves.ts';
import type { Session } from '../db/statement.ts';
import { ApiError } from '../http/problem.ts';
import type { StoredScenarioData } from '../scenarios/data.ts';
import { notFound } from '../scenarios/workflows.ts';
import type { Shared } from './forms.ts';
import { MAX_LIVE_SHARE_LINKS, SHARE_LINK_LIST_LIMIT } from './limits.ts';

export const linkNotFound = () => new ApiError('not_found', 'No share link with that id on this scenario');

export interface NewShareLink {
  id: string;
  secret: string;
  expiresAt: number;
  showNicknames: boolean;
}

/**
 * POST /scenarios/{token}/share_links: the link, inserted while the scenario has fewer than
 * MAX_LIVE_SHARE_LINKS live ones, and read back by its id: there (created now or by an earlier
 * try), or 404 (no such scenario of the caller's), or 409 (the scenario has as many live links).
 */
export async function createShareLink({ session, key, run }: Keyed, token: string, link: NewShareLink): Promise<ShareLink> {
  const values = {
    ...key,
    token,
    id: link.id,
    secretHash: await sha256Hex(link.secret),
    showNicknames: link.showNicknames ? 1 : 0,
    expiresAt: link.expiresAt,
    maxLive: MAX_LIVE_SHARE_LINKS,
  };
  const { rows } = await run({
    insert: insertShareLink(session, values),
    link: shareLinkOf(session, values),
    live: liveShareLinkCount(session, values),
  });
  const [row] = rows.link;
  if (row) return toShareLink(row);
  if (rows.live.length === 0) throw notFound();
  throw new ApiError('too_many_share_links', `A scenario can have at most ${MAX_LIVE_SHARE_LINKS} live share links; revoke one first`);
}

/** GET /scenarios/{token}/share_links: the newest links, and whether older ones exist; 404 for no such scenario. */
export async function listShareLinks({ session, key, run }: Keyed, token: string) {
  const values = { ...key, token };
  const { rows } = await run({ links: shareLinksOf(session, { ...values, limit: SHARE_LINK_LIST_LIMIT + 1 }), live: liveShareLinkCount(session, values) });
  if (rows.live.length === 0) throw notFound();
  return { links: rows.links.slice(0, SHARE_LINK_LIST_LIMIT).map(toShareLink), hasMore: rows.links.length > SHARE_LINK_LIST_LIMIT };
}

/** DELETE /scenarios/{token}/share_links/{id}: revoked at once (again: as it was); 404 for no such link. */
export async function revokeShareLink({ session, key, run }: Keyed, token: string, id: string): Promise<ShareLink> {
  const values = { ...key, token, id };
  const { rows } = await run({ revoke: revokeStatement(session, values), link: shareLinkOf(session, values) });
  const [row] = rows.link;
  if (!row) throw linkNotFound();
  return toShareLink(row);
}

/**
 * GET /shared/{secret}: in one round trip, the address's throttle, the view counted and what the
 * link shows; null for a secret that opens nothing (unknown, revoked, expired, deleted scenario).
 */
export async function viewShared(
  session: Session,
  secret: string,
  address: string,
  now: number,
): Promise<{ shared: Shared | null; throttled: boolean; movedTo: number | null }> {
  const values = { secretHash: await sha256Hex(secret), now };
  const rows = await runBatch(session, {
    throttle: throttleOf(session, { address, now }),
    view: countShareView(session, values),
    shared: sharedScenario(session, values),
    // A link of an account moved away finds where it went instead (db/moves.ts).
    moved: secretForwarding(session, values),
  });
  const [raw] = rows.shared;
  const throttled = rows.throttle.length > 0;
  const movedTo = (rows.moved[0]?.database as number | undefined) ?? null;
  if (!raw) return { shared: null, throttled, movedTo };
  const row = toSharedRow(raw);
  const shared: Shared = { ...row, data: JSON.parse(row.scenarioData) as StoredScenarioData };
  return { shared, throttled, movedTo: null };
}
