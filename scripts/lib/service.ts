// The service as users run it, for the scripts that check it over real HTTP (smoke, browser,
// soak): `npm start` (scripts/start.ts) on a given port, the development key it prints, and a
// clean stop of the whole process group (wrangler and workerd).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface RunningService {
  base: string;
  key: string;
  adminToken: string;
  /** SIGTERM to the process group, SIGKILL if it is still up after 10 s. */
  stop: () => Promise<void>;
  /** Immediate SIGKILL, for watchdogs. */
  kill: () => void;
  /** Everything the server wrote so far, stdout and stderr (stderr is passed on as well). */
  output: () => string;
}

export async function startService(port: string, timeoutMs = 120_000, env: Record<string, string> = {}): Promise<RunningService> {
  const server = spawn(process.execPath, ['scripts/start.ts'], {
    env: { ...process.env, PORT: port, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  server.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stderr.write(chunk);
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-server.pid!, name);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return signal('SIGKILL');
    const exited = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      server.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    signal('SIGTERM');
    if (!(await exited)) signal('SIGKILL');
  };
  try {
    const key = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no key printed within ${timeoutMs / 1000} s:\n${out}`)), timeoutMs);
      // Stays attached: `output` keeps what the server says after the key too.
      server.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        output += chunk.toString();
        const match = /Development API key: (\S+)/.exec(out);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      server.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${out}`));
      });
    });
    const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync('.dev.vars', 'utf8'))?.[1]?.trim() ?? '';
    return { base: `http://127.0.0.1:${port}`, key, adminToken, stop, kill: () => signal('SIGKILL'), output: () => output };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** TAP-like checks that end with the "N passed, N failed" line CI reads. */
export function checklist() {
  let passed = 0;
  let failed = 0;
  return {
    check(label: string, condition: boolean, detail = ''): boolean {
      if (condition) passed++;
      else failed++;
      const n = passed + failed;
      console.log(condition ? `ok ${n} - ${label}` : `not ok ${n} - ${label}${detail ? `\n  ${detail.replaceAll('\n', '\n  ')}` : ''}`);
      return condition;
    },
    get failed() {
      return failed;
    },
    summary(): string {
      return `${passed} passed, ${failed} failed`;
    },
  };
}
