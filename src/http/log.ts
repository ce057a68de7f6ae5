// Structured logs: one JSON object per line, which Workers Logs indexes by field. Callers pass
// only fields that are safe to keep: never keys, tokens of the admin, bodies or error messages
// (database errors quote SQL and bound values).
type Fields = Record<string, string | number | boolean | null | undefined>;

export function log(level: 'info' | 'error', msg: string, fields: Fields): void {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}

/** A request path as logged: anything shaped like an API key in it is cut to its public prefix. */
export function loggablePath(path: string): string {
  return path.replace(/scn_[0-9A-Za-z]{7,}/g, (key) => `${key.slice(0, 10)}…`);
}
