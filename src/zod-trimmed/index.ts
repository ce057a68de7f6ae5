// zod, trimmed: the package `zod` as the Worker bundle sees it (wrangler.toml [alias]; vitest.config.ts too, so
// the tests run the same code): the same `z` and named exports, without what ./exports.ts drops.
import * as z from './exports.ts';

export * from './exports.ts';
export { z, z as default };
