// The one way tests wrap the real local D1 (to observe statements, inject faults, or run another
// request between a commit and its reply): a Proxy over the binding, a session of it, and the
// statements it prepares, with hooks for what the test changes. Everything else goes straight to
// the real object, with the real object as `this` (D1's objects refuse to run on a Proxy).

/** Reads `prop` off its own target, bound to it. */
function forward<T extends object>(target: T, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

const REAL = Symbol('real statement');

/** The statement the wrapper was made from (D1's batch takes only real statements). */
export function realStatement(statement: D1PreparedStatement): D1PreparedStatement {
  return (statement as unknown as Record<symbol, D1PreparedStatement>)[REAL] ?? statement;
}

export interface D1Hooks {
  /** A statement's `bind(...)` is about to be called. */
  bind?(sql: string, params: unknown[]): void;
  /** A statement's round trip (`all`, `run`, `first`, `raw`): call `run` to make it. */
  statement?<T>(run: () => Promise<T>): Promise<T>;
  /** A batch's round trip: call `run` to make it. */
  batch?(run: () => Promise<D1Result[]>, statements: D1PreparedStatement[]): Promise<D1Result[]>;
}

const TERMINAL = new Set(['all', 'run', 'first', 'raw']);

/** `handle` (env.DB or one of its sessions), with `hooks` in the path of every statement and batch. */
export function wrapD1<T extends D1Database | D1DatabaseSession>(handle: T, hooks: D1Hooks): T {
  const wrapStatement = (sql: string, statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop) {
        if (prop === REAL) return target;
        if (prop === 'bind') {
          return (...params: unknown[]) => {
            hooks.bind?.(sql, params);
            return wrapStatement(sql, target.bind(...params));
          };
        }
        if (hooks.statement && typeof prop === 'string' && TERMINAL.has(prop)) {
          const method = Reflect.get(target, prop, target) as (...args: unknown[]) => Promise<unknown>;
          return (...args: unknown[]) => hooks.statement!(() => method.apply(target, args));
        }
        return forward(target, prop);
      },
    });
  return new Proxy(handle, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => wrapStatement(sql, target.prepare(sql));
      if (prop === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          const run = () => target.batch(statements.map(realStatement));
          return hooks.batch ? hooks.batch(run, statements) : run();
        };
      }
      if (prop === 'withSession') return (constraint?: string) => wrapD1((target as D1Database).withSession(constraint), hooks);
      return forward(target, prop);
    },
  });
}
