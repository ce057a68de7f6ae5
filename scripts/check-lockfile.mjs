// CI: fails when package-lock.json stops recording the native binaries of workerd or esbuild
// for one of the platforms people develop on. npm records an optional platform package only if
// the registry served it when the lockfile was written; a missing one makes `npm ci` fail
// everywhere ("Missing: ... from lock file") and leaves that platform without the binary.
// Plain JavaScript on purpose: it runs on any Node, before anything else is known to work.
import { readFileSync } from 'node:fs';

const PLATFORMS = [
  ['linux', 'x64'],
  ['linux', 'arm64'],
  ['darwin', 'x64'],
  ['darwin', 'arm64'],
  ['win32', 'x64'],
];
// Packages that ship their binary as one optional dependency per platform.
const NATIVE = ['workerd', 'esbuild'];

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
const packages = lock.packages ?? {};

/** The lock entry Node's resolution would find for `name` required from the package at `from`. */
function resolveEntry(from, name) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[key]) return [key, packages[key]];
    if (!dir) return [key, undefined];
  }
}

const problems = [];
let checked = 0;
for (const [path, entry] of Object.entries(packages)) {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  if (!NATIVE.includes(name) || !entry.optionalDependencies) continue;
  checked++;
  const covered = new Set();
  for (const [dep, version] of Object.entries(entry.optionalDependencies)) {
    const [key, found] = resolveEntry(path, dep);
    if (!found) continue; // reported below as an uncovered platform
    if (found.version !== version) problems.push(`${key}: ${found.version}, but ${path}@${entry.version} wants ${version}`);
    else if (!found.integrity) problems.push(`${key}@${found.version}: no integrity (not downloadable as locked)`);
    else for (const os of found.os ?? []) for (const cpu of found.cpu ?? []) covered.add(`${os}-${cpu}`);
  }
  for (const [os, cpu] of PLATFORMS) {
    if (!covered.has(`${os}-${cpu}`)) problems.push(`${path}@${entry.version}: no ${os}-${cpu} binary in the lockfile`);
  }
}
if (checked === 0) problems.push(`no ${NATIVE.join(' or ')} package found in package-lock.json`);

if (problems.length > 0) {
  console.error(`package-lock.json is missing native binaries:\n  ${problems.join('\n  ')}`);
  console.error(`Pick versions whose platform packages all exist on the registry, then regenerate the lockfile.`);
  process.exit(1);
}
console.log(`package-lock.json: ${checked} workerd/esbuild packages, each with ${PLATFORMS.map((p) => p.join('-')).join(', ')}`);
