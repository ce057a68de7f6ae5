/// <reference types="vite/client" />
// The structure docs/layout.md draws, held against the imports: three Workers beside their own
// configuration (src/ with wrangler.toml, dashboard/src/ with dashboard/wrangler.toml, admin/src/
// with admin/wrangler.toml); what the dashboard takes from the API's src/ is the shared list below;
// the API never imports the dashboard or the admin API, nor, from what its Worker reaches, the
// account mover; and no folder imports a folder that imports it back.
import { describe, expect, it } from 'vitest';

const sources = import.meta.glob<string>(['../src/**/*.{ts,tsx}', '../dashboard/src/**/*.{ts,tsx}', '../admin/src/**/*.{ts,tsx}'], { query: '?raw', import: 'default', eager: true });

/** Modules of src/ the dashboard Worker shares with the API (docs/layout.md, "Shared"). */
const SHARED_WITH_DASHBOARD = [
  'src/auth/api-key.ts',
  'src/auth/issue-key.ts',
  'src/db/api-keys.ts',
  'src/db/databases.ts',
  'src/db/directory.ts',
  'src/db/events.ts',
  'src/db/execute.ts',
  'src/db/moves.ts',
  'src/db/receipts.ts',
  'src/db/rows.ts',
  'src/db/schema.ts',
  'src/db/statement.ts',
  'src/db/webhooks.ts',
  'src/env.ts',
  'src/http/misspelt-cursor.ts',
  'src/http/problem.ts',
  'src/http/timestamps.ts',
  'src/webhooks/limits.ts',
  'src/webhooks/queue.ts',
  'src/webhooks/secret-box.ts',
  'src/webhooks/signing.ts',
  'src/webhooks/url-rules.ts',
  'src/webhooks/workflows.ts',
  'src/api-versions.ts',
  'src/versions/versions.ts',
  'src/versions/change.ts',
  'src/versions/changes/misspelt-cursor.ts',
  'src/versions/changes/one-scenario-shape.ts',
  'src/versions/changes/string-tokens.ts',
];

/** Every relative import of the Workers' code: [importing file, imported file], repository paths. */
function imports(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [file, text] of Object.entries(sources)) {
    const from = file.replace(/^\.\.\//, '');
    for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'|^import\s+'(\.{1,2}\/[^']+)'/gms)) {
      if (spec === undefined) continue;
      const parts = from.split('/').slice(0, -1);
      for (const step of spec.split('/')) {
        if (step === '..') parts.pop();
        else if (step !== '.') parts.push(step);
      }
      out.push([from, parts.join('/')]);
    }
  }
  return out;
}

/** The folder a file is in, as a room of the drawing: `src/db`, `dashboard/src/pages`; files of a Worker's root stand alone. */
function folderOf(path: string): string {
  const parts = path.split('/');
  const root = parts[0] === 'dashboard' || parts[0] === 'admin' ? 2 : 1;
  return parts.length > root + 1 ? parts.slice(0, root + 1).join('/') : path;
}

describe('the layout', () => {
  it('the API Worker never imports the dashboard Worker', () => {
    expect(imports().filter(([from, to]) => from.startsWith('src/') && to.startsWith('dashboard/'))).toEqual([]);
  });

  it('the API Worker never imports the admin Worker, and what its entry reaches has no account mover', () => {
    const edges = imports();
    expect(edges.filter(([from, to]) => (from.startsWith('src/') || from.startsWith('dashboard/')) && to.startsWith('admin/'))).toEqual([]);
    // Every module src/index.ts reaches, statically or by import(): the API Worker's bundle.
    const dynamic = Object.entries(sources).flatMap(([file, text]) =>
      [...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map(([, spec]) => [file.replace(/^\.\.\//, ''), spec!] as const),
    );
    const resolved: Array<[string, string]> = [
      ...edges,
      ...dynamic.map(([from, spec]): [string, string] => {
        const parts = from.split('/').slice(0, -1);
        for (const step of spec.split('/')) {
          if (step === '..') parts.pop();
          else if (step !== '.') parts.push(step);
        }
        return [from, parts.join('/')];
      }),
    ];
    const reached = new Set(['src/index.ts']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [from, to] of resolved) {
        if (reached.has(from) && !reached.has(to)) {
          reached.add(to);
          grew = true;
        }
      }
    }
    expect(reached.size).toBeGreaterThan(50);
    expect([...reached].filter((file) => file.startsWith('src/moves/') || file.startsWith('admin/'))).toEqual([]);
  });

  it('the dashboard Worker takes from src/ only the modules named as shared', () => {
    const taken = new Set(imports().filter(([from, to]) => from.startsWith('dashboard/') && to.startsWith('src/')).map(([, to]) => to));
    expect([...taken].filter((to) => !SHARED_WITH_DASHBOARD.includes(to)).sort(), 'name it in SHARED_WITH_DASHBOARD and docs/layout.md').toEqual([]);
  });

  it('no folder imports a folder that imports it back', () => {
    const edges = new Set(imports().map(([from, to]) => `${folderOf(from)} -> ${folderOf(to)}`).filter((edge) => !edge.split(' -> ').every((f, _, [a]) => f === a)));
    const back = [...edges].filter((edge) => edges.has(edge.split(' -> ').reverse().join(' -> ')));
    expect(back.sort()).toEqual([]);
  });
});
