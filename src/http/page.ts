// A page of a list: what a request asks for and how fetched rows become the page. Apart from the
// query schemas of pagination.ts (zod), so a workflow that pages imports no zod: the dashboard
// Worker runs the API's webhook workflows without bundling it.

export interface PageRequest<Cursor> {
  limit: number;
  /** Items older than this one (the next page, newest first). */
  startingAfter?: Cursor | undefined;
  /** Items newer than this one (the previous page). */
  endingBefore?: Cursor | undefined;
}

/** Rows fetched with limit + 1: the page in newest-first order, and whether more lie beyond it. */
export function toPage<Row>(rows: Row[], page: PageRequest<unknown>): { rows: Row[]; hasMore: boolean } {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  return { rows: page.endingBefore !== undefined ? kept.reverse() : kept, hasMore };
}
