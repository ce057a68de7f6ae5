// The benchmark's printed report: one markdown table per size, the targets of issue 5, bundle
// sizes and the machine. The same data goes to bench/.out/results.json.
import type { HeyResult, WrkResult } from './load.ts';

export interface RunResult {
  worker: string;
  rep: number;
  wrk: WrkResult;
  cpuMsPerRequest: number;
  cpuTicks: number;
  /** CPUs' worth of other load on the machine during the wrk and hey windows. */
  background: number;
  /** Attempts this run took (more than 1 when earlier ones were contended). */
  attempts: number;
  /** Not measured for the floor. */
  hey?: HeyResult;
  heyCpuMsPerRequest?: number;
}

export interface WorkerSummary {
  /** Median wrk requests/s. */
  rps: number;
  /** (max − min) / median of the runs' requests/s. */
  rpsSpread: number;
  /** Median workerd CPU ms per request over the wrk window. */
  cpuMsPerRequest: number;
  cpuSpread: number;
  /** Median hey p50 / p99 (ms). */
  p50Ms: number;
  p99Ms: number;
  heyRps: number;
  heyCpuMsPerRequest: number;
  /** wrk's (coordinated-omission corrected) p50, for reference. */
  wrkP50Ms: number;
  requests: number;
  runs: RunResult[];
}

export interface CellSummary {
  endpoint: string;
  concurrency: number;
  ours: WorkerSummary;
  base: WorkerSummary;
  /** The simulator floor (binding calls only), when measured. */
  floor?: WorkerSummary;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  command: string;
  config: Record<string, unknown>;
  machine: Record<string, unknown>;
  bundles: Record<string, { minifiedBytes: number; gzipBytes: number; modules: string[] }>;
  sizes: Array<{
    n: number;
    seed: { seconds: number; bytes: number; viewToken: string; deepCursor: number };
    parity: string[];
    cells: CellSummary[];
  }>;
}

const f0 = (x: number) => x.toFixed(0);
const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ENDPOINT_LABEL: Record<string, string> = {
  view: 'view `GET /scenarios/{token}`',
  list: 'list `GET /scenarios`',
  list_deep: 'list deep `?starting_after=`',
  save: 'save `POST /scenarios/save`',
  create: 'create `POST /scenarios`',
  me: '`GET /me`',
};

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Ours over the baseline, rep by rep (measured in alternating slices of the same seconds); the medians. */
export function pairedRatios(cell: CellSummary): { rps: number; cpu: number } {
  const rps: number[] = [];
  const cpu: number[] = [];
  for (const o of cell.ours.runs) {
    const b = cell.base.runs.find((r) => r.rep === o.rep);
    if (!b) continue;
    rps.push(o.wrk.rps / b.wrk.rps);
    cpu.push(o.cpuMsPerRequest / b.cpuMsPerRequest);
  }
  return { rps: median(rps), cpu: median(cpu) };
}

export function formatReport(report: Report): string {
  const out: string[] = [];
  const reps = String(report.config.reps);
  out.push(`# Scenario Service benchmark — ${report.startedAt}`, '');
  if (report.config.aa) {
    out.push(
      '**A/A calibration** (`BENCH_AA=1`): the "ours" columns are the raw baseline too, so every ratio below would be 1.00 ' +
        "on a noiseless machine; its distance from 1.00 is this machine's noise at this many reps.",
      '',
    );
  }
  if (report.config.against) {
    out.push(
      `**A/B** (\`BENCH_AGAINST=${report.config.against}\`): the "baseline" columns are that earlier build of the service, ` +
        'not the raw baseline; a ratio above 1.00 (throughput) or below 1.00 (CPU) is this build being cheaper. The targets do not apply.',
      '',
    );
  }
  out.push(
    `Medians of ${reps} rep(s) per cell. In each rep every Worker gets a fresh workerd and a fresh copy of the seeded D1, and ` +
      `the wrk window is cut into 1 s slices alternating between them (A B, B A, …). req/s: wrk -t1, ${String(report.config.duration)} × 1 s. p50/p99: hey, ${String(report.config.heyDuration)} s (0.1 ms resolution). ` +
      'CPU: utime+stime of the workerd process over the wrk window ÷ requests served (includes the local D1 simulator and the ' +
      'rate-limit binding, which both Workers use alike). Ratios are ours/baseline, the median of the reps\' own ratios (the two Workers of a rep ran in the same seconds, so the ' +
      'machine\'s drift between reps cancels out): throughput wants ≥ 0.90, CPU ≤ 1.15. ' +
      'floor: a Worker making only the same binding calls (D1 statements, rate limiter), measured the same way; ' +
      '"own CPU" = CPU − floor, an estimate of what each Worker spends itself (in production D1 and the rate limiter do not ' +
      'run on the Worker\'s CPU). It is a difference of noisy numbers: read it to ±0.1 ms (no ratio when the baseline\'s is under 0.1 ms).',
    '',
  );
  for (const size of report.sizes) {
    out.push(`## N = ${size.n.toLocaleString('en-US')} scenarios`, '');
    const withFloor = size.cells.some((c) => c.floor);
    out.push(
      '| endpoint | c | ours req/s | base req/s | ratio | ours p50 / p99 ms | base p50 / p99 ms | ours CPU ms/req | base CPU ms/req | CPU ratio |' +
        (withFloor ? ' floor CPU ms/req | own CPU ours / base | own ratio |' : ''),
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|' + (withFloor ? '---:|---:|---:|' : ''),
    );
    for (const cell of size.cells) {
      const { ours, base, floor } = cell;
      const ratio = pairedRatios(cell);
      let extra = '';
      if (withFloor && floor) {
        const o = ours.cpuMsPerRequest - floor.cpuMsPerRequest;
        const b = base.cpuMsPerRequest - floor.cpuMsPerRequest;
        // Below 0.1 ms the baseline's own CPU is within the noise of the floor: no ratio.
        extra = ` ${f3(floor.cpuMsPerRequest)} | ${f3(o)} / ${f3(b)} | ${b >= 0.1 ? f2(o / b) : '—'} |`;
      } else if (withFloor) {
        extra = ' | | |';
      }
      out.push(
        `| ${ENDPOINT_LABEL[cell.endpoint] ?? cell.endpoint} | ${cell.concurrency} | ${f0(ours.rps)} | ${f0(base.rps)} | ${f2(ratio.rps)} | ` +
          `${ours.p50Ms.toFixed(1)} / ${ours.p99Ms.toFixed(1)} | ${base.p50Ms.toFixed(1)} / ${base.p99Ms.toFixed(1)} | ` +
          `${f3(ours.cpuMsPerRequest)} | ${f3(base.cpuMsPerRequest)} | ${f2(ratio.cpu)} |${extra}`,
      );
    }
    const noisy = size.cells.flatMap((c) =>
      (['ours', 'base'] as const)
        .filter((w) => c[w].rpsSpread > 0.2 || c[w].cpuSpread > 0.2)
        .map((w) => `${c.endpoint} c=${c.concurrency} ${w} (req/s ±${(c[w].rpsSpread * 50).toFixed(0)}%, CPU ±${(c[w].cpuSpread * 50).toFixed(0)}%)`),
    );
    out.push('');
    out.push(`Seeded in ${size.seed.seconds.toFixed(1)} s (${(size.seed.bytes / 1e6).toFixed(0)} MB); deep page: starting_after=${size.seed.deepCursor}.`);
    out.push(size.parity.length === 0 ? 'Parity: ours and the baseline gave the same statuses, bodies and headers on every endpoint.' : `Parity problems: ${size.parity.join('; ')}`);
    const all = size.cells.flatMap((c) => [...c.ours.runs, ...c.base.runs, ...(c.floor?.runs ?? [])]);
    const repeated = all.filter((r) => r.attempts > 1).length;
    const contended = all.filter((r) => r.background > Number(report.config.maxBackground)).length;
    const maxBg = Math.max(0, ...all.map((r) => r.background));
    out.push(
      `Background load: at most ${maxBg.toFixed(2)} CPUs besides workerd and the load generators; ${repeated} of ${all.length} runs ` +
        `repeated for it${contended > 0 ? `, **${contended} accepted while contended**` : ''}.`,
    );
    if (noisy.length > 0) out.push(`Runs spread over ±10% (max−min over median > 20%): ${noisy.join(', ')}.`);
    out.push('');
  }

  out.push('## Targets (issue 5)', '');
  const largest = report.sizes.reduce<Report['sizes'][number] | undefined>((a, s) => (!a || s.n > a.n ? s : a), undefined);
  const smallest = report.sizes.reduce<Report['sizes'][number] | undefined>((a, s) => (!a || s.n < a.n ? s : a), undefined);
  if (largest) {
    out.push(`At N = ${largest.n.toLocaleString('en-US')}:`, '', '| endpoint | c | throughput ratio (≥ 0.90) | CPU ratio (≤ 1.15) |', '|---|---:|---:|---:|');
    for (const cell of largest.cells.filter((c) => ['view', 'list', 'save'].includes(c.endpoint))) {
      const { rps: t, cpu } = pairedRatios(cell);
      out.push(`| ${cell.endpoint} | ${cell.concurrency} | ${f2(t)} ${t >= 0.9 ? 'met' : '**missed**'} | ${f2(cpu)} ${cpu <= 1.15 ? 'met' : '**missed**'} |`);
    }
    out.push('');
  }
  if (largest && smallest && largest !== smallest) {
    out.push(
      `p50 at N = ${largest.n.toLocaleString('en-US')} over p50 at N = ${smallest.n.toLocaleString('en-US')} (ours, hey; want ≤ 1.10):`,
      '',
      '| endpoint | c | p50 small | p50 large | ratio |',
      '|---|---:|---:|---:|---:|',
    );
    for (const cell of largest.cells.filter((c) => ['view', 'list'].includes(c.endpoint))) {
      const small = smallest.cells.find((c) => c.endpoint === cell.endpoint && c.concurrency === cell.concurrency);
      if (!small) continue;
      const r = cell.ours.p50Ms / small.ours.p50Ms;
      out.push(`| ${cell.endpoint} | ${cell.concurrency} | ${small.ours.p50Ms.toFixed(1)} ms | ${cell.ours.p50Ms.toFixed(1)} ms | ${f2(r)} ${r <= 1.1 ? 'met' : '**missed**'} |`);
    }
    out.push('');
  }

  out.push('## Bundles', '', '| Worker | minified | gzip -9 | modules |', '|---|---:|---:|---|');
  for (const [name, b] of Object.entries(report.bundles)) {
    const label: Record<string, string> = {
      ours: 'ours (wrangler deploy --dry-run --minify)',
      base: 'raw baseline (esbuild --minify)',
      floor: 'simulator floor (esbuild --minify)',
    };
    out.push(`| ${label[name] ?? name} | ${kib(b.minifiedBytes)} (${b.minifiedBytes} B) | ${kib(b.gzipBytes)} (${b.gzipBytes} B) | ${b.modules.join(', ')} |`);
  }
  out.push('');
  const m = report.machine;
  out.push('## Machine and command', '');
  out.push(`- ${String(m.nproc)} CPUs, ${String(m.cpuModel)}; Linux ${String(m.kernel)}; CLK_TCK ${String(m.clkTck)}`);
  out.push(`- Node ${String(m.node)}; ${String(m.workerd)}; ${String(m.wrk)}`);
  out.push(`- ${report.startedAt} → ${report.finishedAt}`);
  out.push(`- \`${report.command}\` (config ${JSON.stringify(report.config)})`, '');
  return out.join('\n');
}
