// What the Worker uses of zod's public API: zod/v4/classic/external.js, less the parts that are
// never used here and weigh most of the bundle — `z.locales` and `z.core` (whose namespaces hold
// every translation of zod's messages: 260 KiB of a 660 KiB bundle), JSON Schema conversion and
// the JIT compiler (deployed Workers refuse runtime code generation anyway). English messages stay:
// zod registers them itself on the first schema it builds.
// Relative paths into the package on purpose: the alias that points `zod` here also catches
// `zod/...` subpaths.
export * from '../../node_modules/zod/v4/classic/schemas.js';
export * from '../../node_modules/zod/v4/classic/checks.js';
export * from '../../node_modules/zod/v4/classic/errors.js';
export * from '../../node_modules/zod/v4/classic/parse.js';
export * from '../../node_modules/zod/v4/classic/compat.js';
export {
  globalRegistry,
  registry,
  config,
  $output,
  $input,
  $brand,
  clone,
  treeifyError,
  prettifyError,
  formatError,
  flattenError,
  TimePrecision,
  NEVER,
} from '../../node_modules/zod/v4/core/index.js';
export { ZodISODateTime, ZodISODate, ZodISOTime, ZodISODuration } from '../../node_modules/zod/v4/classic/iso.js';
export * as iso from '../../node_modules/zod/v4/classic/iso.js';
export * as coerce from '../../node_modules/zod/v4/classic/coerce.js';
