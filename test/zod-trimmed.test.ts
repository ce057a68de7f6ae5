// src/zod-trimmed/ is what `zod` means in the Worker and in these tests (wrangler.toml [alias],
// vitest.config.ts): zod's public API without its translations, JSON Schema conversion and JIT.
// This pins its surface: everything zod exports is here but the parts dropped on purpose, so a
// zod upgrade that adds or renames an export shows up here rather than as a missing function.
import { describe, expect, it } from 'vitest';
import * as trimmed from '../src/zod-trimmed/index.ts';
import * as full from '../node_modules/zod/v4/classic/external.js';

/** Dropped on purpose, and why. */
const DROPPED = [
  // Every translation of zod's messages, and zod's internals (core, util, regexes, memoizer…).
  ...['locales', 'core', 'util', 'regexes', 'memoizer', 'INVALID', 'getDiscriminatedOption', 'deepPartial', 'input', 'output', '$ZodTypes'],
  // JSON Schema conversion (the OpenAPI generator has its own).
  ...['toJSONSchema', 'fromJSONSchema', 'JSONSchema', 'JSONSchemaGenerator', 'toZod'],
  // The JIT compiler: deployed Workers refuse runtime code generation.
  ...['compile', 'withParser', 'ZodCompileAsyncError', 'ZodCompileUnsupportedError'],
];

describe('zod, trimmed', () => {
  it("exports zod's public API less what is dropped on purpose, plus z and a default", () => {
    const fullNames = Object.keys(full).filter((name) => !DROPPED.includes(name));
    const missing = fullNames.filter((name) => !(name in trimmed));
    expect(missing).toEqual([]);
    const extra = Object.keys(trimmed).filter((name) => !(name in full));
    expect(extra.sort()).toEqual(['default', 'z']);
    for (const name of DROPPED) expect(name in trimmed, name).toBe(false);
  });

  it('builds and parses schemas with English messages', () => {
    const schema = trimmed.z.object({ n: trimmed.z.number().max(3) });
    const result = schema.safeParse({ n: 4 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Too big: expected number to be <=3');
  });
});
