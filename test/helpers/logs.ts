// The Worker's log lines during each test of a file: console.log and console.error are captured
// (and kept off the report) from beforeEach to afterEach.
import { afterEach, beforeEach, vi } from 'vitest';

/** Registers the capture for the calling file; the array holds the current test's lines. */
export function captureLogs(): string[] {
  const lines: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    const capture = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    vi.spyOn(console, 'log').mockImplementation(capture);
    vi.spyOn(console, 'error').mockImplementation(capture);
  });
  afterEach(() => vi.restoreAllMocks());
  return lines;
}
