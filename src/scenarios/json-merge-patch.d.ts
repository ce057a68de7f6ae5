// json-merge-patch ships no types; only its RFC 7396 `apply` is imported (not the package index,
// which would bring its generator and fast-deep-equal into the bundle).
declare module 'json-merge-patch/lib/apply.js' {
  /** RFC 7396 MergePatch(target, patch): changes `target` in place where it can, and returns the result. */
  export default function apply(target: unknown, patch: unknown): unknown;
}
