// Types the tests see: the migrations binding from vitest.config.ts and the Worker's own exports
// (so `exports.default.fetch` from 'cloudflare:workers' is typed).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
  }
  interface GlobalProps {
    mainModule: typeof import('../src/index.ts');
  }
}
