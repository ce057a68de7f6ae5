// Every npm script goes through this: `node scripts/run.mjs <file.ts | tool> [args...]`.
// - It sets WRANGLER_SEND_METRICS=false and CLOUDFLARE_CF_FETCH_ENABLED=false the same way on
//   every OS (a `VAR=x cmd` script line means nothing to Windows shells).
// - It runs the script or tool on the project's pinned Node (the `node` devDependency, which its
//   install script downloads), and says plainly what is missing when that Node is not there.
// Plain JavaScript on purpose: it has to run on whatever Node started it, old ones included.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Tools (direct devDependencies) whose command name differs from their package name.
const BIN_PACKAGES = { tsc: 'typescript' };

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pinnedMajor = Number(/\d+/.exec(pkg.devDependencies.node)[0]);
const major = (version) => Number(version.replace(/^v/, '').split('.')[0]);

/** The Node to run on: the pinned one when it is installed, else this one if it is as new. */
function chooseNode() {
  const dir = join(root, 'node_modules', 'node', 'bin');
  const pinned = [join(dir, 'node.exe'), join(dir, 'node')].find((file) => existsSync(file) && isExecutable(file));
  if (pinned) return pinned;
  if (major(process.version) >= pinnedMajor) return process.execPath;
  console.error(`
This project's scripts run on Node ${pinnedMajor}, which it installs itself: the "node" package in
devDependencies downloads it in its install script. That Node is missing
(node_modules/node/bin/node), and this is Node ${process.version}, which cannot run them
(TypeScript files, wrangler).

The install scripts did not run: \`npm install --ignore-scripts\`, the ignore-scripts setting, or
pnpm (which skips install scripts unless told). Either
  - let them run:  npm rebuild --ignore-scripts=false node workerd esbuild
                   (pnpm: pnpm approve-builds, then pnpm rebuild)
  - or put Node ${pinnedMajor} or newer first on your PATH and run the script again.
`);
  process.exit(1);
}

/** Without its install script, bin/node is missing (or, on Windows, a placeholder text file). */
function isExecutable(file) {
  return statSync(file).size > 1024 * 1024;
}

/** `tool args` → the tool's own JavaScript entry, so no shell (and no .cmd shim) is involved. */
function toolEntry(name) {
  const packageName = BIN_PACKAGES[name] ?? name;
  const manifestPath = join(root, 'node_modules', packageName, 'package.json');
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const entry = typeof bin === 'string' ? bin : bin?.[name];
  if (!entry) throw new Error(`${packageName} has no "${name}" command`);
  return join(dirname(manifestPath), entry);
}

const [target, ...args] = process.argv.slice(2);
if (!target) {
  console.error('usage: node scripts/run.mjs <script.ts | tool> [args...]');
  process.exit(2);
}
const node = chooseNode();
const entry = /\.[cm]?[jt]s$/.test(target) ? resolve(target) : toolEntry(target);
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' };
// The tools and scripts that start other Node processes start them on this same Node.
const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
env[pathKey] = `${dirname(node)}${process.platform === 'win32' ? ';' : ':'}${env[pathKey] ?? ''}`;

const child = spawn(node, [entry, ...args], { stdio: 'inherit', env });
// Ctrl-C reaches the child from the terminal; a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
