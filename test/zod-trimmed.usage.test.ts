/// <reference types="vite/client" />
// The Worker's zod (src/zod-trimmed/index.ts) lists by name what src/ calls on `z`, so that the
// bundler can drop the rest of zod. A factory used in src/ but not listed would be `undefined` in
// the Worker: this finds every `z.name` in src/ and checks the Worker's `z` has it.
import { describe, expect, it } from 'vitest';
import { z } from '../src/zod-trimmed/index.ts';

const sources = import.meta.glob<string>('../src/**/*.ts', { query: '?raw', import: 'default', eager: true });
// Type-only members (z.infer<…>, z.core.ParsePayload, z.RefinementCtx) are not values.
const TYPE_ONLY = new Set(['infer', 'input', 'output', 'core', 'RefinementCtx']);

describe("the Worker's zod", () => {
  it('has every member src/ uses on z', () => {
    const missing: string[] = [];
    for (const [file, text] of Object.entries(sources)) {
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const [, name] of code.matchAll(/(?<![\w.$])z\s*\.\s*([A-Za-z_$][\w$]*)/g)) {
        if (name === undefined || TYPE_ONLY.has(name)) continue;
        if (!(name in z)) missing.push(`z.${name} (${file.replace('../', '')})`);
      }
    }
    expect([...new Set(missing)], 'add these to the z of src/zod-trimmed/index.ts').toEqual([]);
  });
});
