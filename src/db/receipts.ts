// Receipts of changes that may leave no row to find them by (an endpoint's delete, a secret's
// rotation): written in the change's own batch under the id its request drew, read back by a retry
// of the request to learn what its first try did. The hourly cron drops them after a day, long
// after any retry (execute.ts gives up within seconds).
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { runOne } from './execute.ts';
import { writeReceipts } from './schema.ts';
import { statement, type Session } from './statement.ts';

const p = sql.placeholder;

/** True in SQL once the change `changeId` (placeholder) has committed. */
export function changeCommitted(): SQL {
  return sql`exists (select 1 from ${writeReceipts} where ${writeReceipts.id} = ${p('changeId')})`;
}

/**
 * The receipt of change `changeId`, written when `condition` holds (the change applied). Written
 * again by a retry, it stays as the first try wrote it.
 */
export function receiptWhere<Values extends object>(condition: () => SQL) {
  return statement<Values & { changeId: string; now: number }>(
    () => sql`insert into ${writeReceipts} (id, created_at) select ${p('changeId')}, ${p('now')} where ${condition()} on conflict do nothing`,
  );
}

/** One row once the change `changeId` has committed. */
export const receiptOf = statement<{ changeId: string }>(() => sql`select 1 as committed from ${writeReceipts} where ${writeReceipts.id} = ${p('changeId')}`);

const prune = statement<{ before: number }>(() => sql`delete from ${writeReceipts} where ${writeReceipts.createdAt} < ${p('before')}`);

/** For the hourly cron: receipts older than any retry. */
export async function pruneReceipts(session: Session, before: number): Promise<void> {
  await runOne(session, prune(session, { before }));
}

/** A change's id: drawn once per request and carried by its retries. */
export function newChangeId(): string {
  return `chg_${crypto.randomUUID().replaceAll('-', '')}`;
}
