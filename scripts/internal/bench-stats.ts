/** Summary of a set of timing samples, in the unit the samples were given in. */
export interface Summary {
  count: number;
  /** Sum of every sample. */
  total: number;
  mean: number;
  median: number;
  /** 99th percentile (nearest rank). */
  p99: number;
  min: number;
  max: number;
}

/** Summarises samples (any unit); an empty set gives zero counts and NaN statistics. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  let total = 0;
  for (const s of sorted) total += s;
  if (count === 0) {
    return { count, total, mean: NaN, median: NaN, p99: NaN, min: NaN, max: NaN };
  }
  const mid = count >> 1;
  const median = count % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return {
    count,
    total,
    mean: total / count,
    median,
    p99: percentile(sorted, 0.99),
    min: sorted[0]!,
    max: sorted[count - 1]!,
  };
}

/** Nearest-rank percentile of an ascending array (`q` in 0..1). */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** Elapsed nanoseconds since `start` (a `process.hrtime.bigint()` reading), as a number. */
export function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}
