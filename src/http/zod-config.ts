// zod's settings for the Worker, imported before any schema is built (first in src/app.ts).
//
// - No cycle support. zod 4.6 gives every container schema (object, array, record) a memoizer by
//   default: a wrapper on its parse that, on the container's first parse, walks its whole subtree
//   to learn whether it can recurse, so that an input holding a reference cycle parses. What the
//   Worker parses is JSON, query strings, headers and D1 rows, none of which can hold a cycle, so
//   this memoizer does nothing (zod installs its own only when none is set). It took 2.3 M
//   instructions off a new isolate's first create (bench/README.md, "Cold start").
// - jitless: zod never compiles a parser with `new Function` (this project generates no code at
//   run time). In workerd zod already declines, seeing navigator.userAgent "Cloudflare-Workers";
//   this makes Node (the bench's probe, scripts) run the path production runs.
import * as z from 'zod';

const noCycles: z.core.$ZodMemoizer = {
  attach() {},
  guard() {},
  alloc: (_inst, _payload, empty) => empty,
};

z.config({ memoizer: noCycles, jitless: true });
