// Counting instructions with callgrind under Miniflare: workerd started through a wrapper that runs
// it under valgrind with counting off, and the valgrind process found again to switch counting on
// and off around what is measured (bench:instructions, bench:startup's first requests).
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export function valgrindPresent(): boolean {
  return spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['--version']).status === 0;
}

/**
 * A stand-in for the workerd binary that Miniflare starts (MINIFLARE_WORKERD_PATH), written into
 * `dir`: the real one under callgrind, counting nothing until told to (callgrind_control -i on),
 * its dumps in `dir`.
 */
export function callgrindWorkerd(dir: string): string {
  const workerd = createRequire(import.meta.url)('workerd').default as string;
  const path = join(dir, 'workerd');
  writeFileSync(path, `#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=${dir}/callgrind.%p "${workerd}" "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The valgrind process of this Node process's Miniflare (its direct child, running callgrind). */
export function callgrindChild(): string {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('callgrind')) return pid;
    } catch {
      // gone while we looked
    }
  }
  throw new Error('no callgrind child process found');
}
