// The package `zod` as the Worker bundle sees it (wrangler.toml [alias]; vitest.config.ts too, so
// the tests run the same code): the same named exports, without what ./exports.ts drops
// (test/zod-trimmed.test.ts pins them), and a `z` that lists by name what src/ calls on it.
// A `z` that were the module's namespace would keep every export in the bundle; listed, the
// bundler drops the rest of zod (the other factories, string formats and codecs, JSON Schema
// conversion's remains): 41 KiB less to compile on every new isolate.
// test/zod-trimmed.usage.test.ts fails, naming the file, when src/ uses on `z` what is not listed.
import {
  array,
  boolean,
  email,
  enum as enumOf,
  int,
  literal,
  number,
  object,
  strictObject,
  string,
  union,
  unknown,
  ZodError,
  ZodOptional,
  ZodString,
  ZodType,
} from './exports.ts';

export * from './exports.ts';

export const z = {
  array,
  boolean,
  email,
  enum: enumOf,
  int,
  literal,
  number,
  object,
  strictObject,
  string,
  union,
  unknown,
  ZodError,
  ZodOptional,
  ZodString,
  ZodType,
};
export { z as default };
