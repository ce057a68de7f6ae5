import { defineConfig } from 'drizzle-kit';

// drizzle-kit only generates SQL here; wrangler applies it (locally, remotely and in tests).
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/db/schema.ts', './dashboard/src/db/schema.ts'],
  out: './drizzle',
});
