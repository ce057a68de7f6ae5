// What a fuzz or fault test did (how many bodies, round trips failed, statuses): printed only with
// TEST_SUMMARIES=1 (vitest.config.ts drops these lines otherwise), so a passing `npm test` is quiet.
export const SUMMARY_PREFIX = '[summary] ';

export function summary(line: string): void {
  console.log(`${SUMMARY_PREFIX}${line}`);
}
