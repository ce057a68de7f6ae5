// An account's bounds: what the admin API (admin/src/schema.ts) and `npm run keys` accept, and what
// GET /me documents. A leaf, so the API reads them without the admin API's schemas.

export const ACCOUNT_NAME_MAX = 200;
export const EMAIL_MAX = 254;
