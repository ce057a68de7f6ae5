// Recognising constraint failures in D1's errors (drizzle wraps them; batches may not).
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message.includes('UNIQUE constraint failed') || e.message.includes('SQLITE_CONSTRAINT')) return true;
  }
  return false;
}
