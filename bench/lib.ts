/** Small helpers shared by the benchmarks: timing and percentiles. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export async function timeRequests(n: number, fn: () => Promise<void>): Promise<{ p50: number; p95: number; p99: number; mean: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

export const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
