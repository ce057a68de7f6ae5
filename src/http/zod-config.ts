// zod's settings for the Worker, imported before any schema is built (first in src/app.ts).
//
// zod 4.6 gives every container schema (object, array, record) cycle support by default: a
// wrapper on its parse and, on its first parse, a walk of its whole subtree to learn whether it is
// recursive. Requests arrive as JSON, which cannot hold a reference cycle, and no schema here is
// recursive, so it buys nothing; it cost a new isolate's first create about N M instructions
// (bench/README.md, "Cold start"). This memoizer does nothing, and zod does not install its own.
import * as z from 'zod';

const noCycles: z.core.$ZodMemoizer = {
  attach() {},
  guard() {},
  alloc: (_inst, _payload, empty) => empty,
};

z.config({ memoizer: noCycles, jitless: true });
