// The real local D1, observed: every statement bound through it is reported (its SQL and
// parameters) before it runs. For tests that check what the query functions send.
import { env } from 'cloudflare:workers';

export interface BoundStatement {
  sql: string;
  params: unknown[];
}

/** Calls a method on its own target: D1's objects refuse to run with a Proxy as `this`. */
function forward<T extends object>(target: T, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

export function observedD1(onBind: (statement: BoundStatement) => void): D1Database {
  const observe = (sql: string, statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get: (target, prop) =>
        prop === 'bind' ? (...params: unknown[]) => (onBind({ sql, params }), target.bind(...params)) : forward(target, prop),
    });
  return new Proxy(env.DB, {
    get: (target, prop) => (prop === 'prepare' ? (sql: string) => observe(sql, target.prepare(sql)) : forward(target, prop)),
  });
}
