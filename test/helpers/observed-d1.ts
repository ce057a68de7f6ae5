// The real local D1, observed: every statement bound through it is reported (its SQL and
// parameters) before it runs. For tests that check what the query functions send.
import { env } from 'cloudflare:workers';
import { wrapD1 } from './wrapped-d1.ts';

export interface BoundStatement {
  sql: string;
  params: unknown[];
}

export function observedD1(onBind: (statement: BoundStatement) => void): D1Database {
  return wrapD1(env.DB, { bind: (sql, params) => onBind({ sql, params }) });
}
