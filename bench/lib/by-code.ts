// Where a Worker's counted instructions go in its JavaScript, by module and by function: the
// callgrind dump of bench/instructions.ts read against the map of JIT code that V8 writes with
// --perf-basic-prof (/tmp/perf-<pid>.map: address, size, function and script position), and the
// bundle's source map. Each JavaScript function is charged its own instructions and those of the
// inline-cache handlers it calls (a property looked up by name on objects of many shapes lands in
// Builtins_LoadIC_Megamorphic, not in the function). What it sets off elsewhere (JSON, strings,
// allocation, GC) stays in the process total, not in these rows.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

/** V8 flags that make the counted process write the JIT code map (and keep code where the map says). */
export const PERF_MAP_FLAGS = '--perf-basic-prof --no-compact-code-space';

/** Inline-cache and property-lookup handlers: they work for the function that called them and call no JavaScript back. */
const LOOKUP_HANDLER = /^Builtins_\w*(IC|GetProperty|ForInFilter|HasProperty|SetProperty)\w*$/;

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** Instructions per request, by JavaScript function (V8's name and script position) and by module. */
export interface ByCode {
  functions: Map<string, number>;
  modules: Map<string, number>;
}

function readPerfMap(pid: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(`/tmp/perf-${pid}.map`, 'utf8').split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (!start || !size || name.length === 0) continue;
    const from = Number.parseInt(start, 16);
    ranges.push({ start: from, end: from + Number.parseInt(size, 16), name: name.join(' ') });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

function findRange(ranges: CodeRange[], address: number): CodeRange | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const range = ranges[mid] as CodeRange;
    if (address < range.start) hi = mid - 1;
    else if (address >= range.end) lo = mid + 1;
    else return range;
  }
  return undefined;
}

/**
 * A callgrind dump's costs: each function's own, and each call's inclusive cost by caller and
 * callee (callgrind's format: `fn=`/`cfn=` name a function, with `(id)` standing for a name given
 * once; the cost line after `calls=` is that call's inclusive cost).
 */
function readCallgrind(file: string): { own: Map<string, number>; calls: Map<string, Map<string, number>> } {
  const names = new Map<string, string>();
  const nameOf = (spec: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(spec.trim());
    if (!match) return spec.trim();
    if (match[2] !== undefined) names.set(match[1] as string, match[2]);
    return names.get(match[1] as string) ?? spec.trim();
  };
  const own = new Map<string, number>();
  const calls = new Map<string, Map<string, number>>();
  let fn = '';
  let callee = '';
  let inCall = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) inCall = true;
    else if (/^[0-9+\-*]/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      if (inCall) {
        const byCallee = calls.get(fn) ?? new Map<string, number>();
        byCallee.set(callee, (byCallee.get(callee) ?? 0) + cost);
        calls.set(fn, byCallee);
        inCall = false;
      } else {
        own.set(fn, (own.get(fn) ?? 0) + cost);
      }
    }
  }
  return { own, calls };
}

/** The module a bundle position came from: `node_modules/<package>` or `src/<folder>`. */
function moduleOf(source: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1] as string;
  const src = /(?:^|\/)src\/([^/]+)\//.exec(source);
  return src ? `src/${src[1]}` : source;
}

/**
 * Attributes a counted dump of process `pid` to JavaScript functions. `bundle` is the Worker's
 * script: positions in it are named through its source map when there is one (`<script>.map`),
 * else as `label`.
 */
export function byCode(dumpFile: string, pid: string, requests: number, bundle: string, label: string): ByCode {
  const ranges = readPerfMap(pid);
  const { own, calls } = readCallgrind(dumpFile);
  const map = existsSync(`${bundle}.map`) ? new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8'))) : undefined;
  const bundleName = bundle.slice(bundle.lastIndexOf('/') + 1);

  const describe = (v8Name: string): { fn: string; module: string } => {
    // e.g. "JS:*e._zod.parse index.js:73:19142", "JS:+'#query database.worker.js:206:12"
    if (v8Name.startsWith('RegExp')) return { fn: v8Name, module: '(regular expressions)' };
    const match = /^(?:JS|Function|LazyCompile):\S?(.*) (\S+):(\d+):(\d+)$/.exec(v8Name);
    if (!match) return { fn: v8Name, module: '(other code)' };
    const [, name, script, line, column] = match as unknown as [string, string, string, string, string];
    if (!script.endsWith(bundleName)) return { fn: `${name.replace(/^'/, '')} ${script}:${line}`, module: `(simulator or runtime) ${script.replace(/:\d+$/, '')}` };
    if (!map) return { fn: `${name.replace(/^'/, '')} ${label}:${line}:${column}`, module: label };
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1) as { originalSource?: string; originalLine?: number; name?: string };
    if (!entry.originalSource) return { fn: `${name.replace(/^'/, '')} ${label}:${line}:${column}`, module: label };
    // Sources are named relative to the map's folder; shown relative to the project.
    const source = relative(process.cwd(), resolve(dirname(bundle), entry.originalSource.replace(/^file:\/\//, '')));
    return { fn: `${source}:${(entry.originalLine ?? 0) + 1} ${name.replace(/^'/, '')}`.trim(), module: moduleOf(source) };
  };

  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  const charge = (codeName: string, cost: number) => {
    const address = /^0x([0-9a-f]+)/.exec(codeName);
    const range = address ? findRange(ranges, Number.parseInt(address[1] as string, 16)) : undefined;
    if (!range) return;
    const { fn, module } = describe(range.name);
    functions.set(fn, (functions.get(fn) ?? 0) + cost / requests);
    modules.set(module, (modules.get(module) ?? 0) + cost / requests);
  };
  for (const [fn, cost] of own) charge(fn, cost);
  for (const [fn, byCallee] of calls) {
    for (const [callee, cost] of byCallee) if (LOOKUP_HANDLER.test(callee)) charge(fn, cost);
  }
  return { functions, modules };
}

/** The largest entries of a cost table, as markdown rows (thousands of instructions per request). */
export function topRows(costs: Map<string, number>, count: number): string[] {
  return [...costs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, cost]) => `| ${name.replaceAll('|', '\\|')} | ${(cost / 1000).toFixed(1)} K |`);
}
