/** The median of some numbers (the mean of the two middle ones for an even count): what bench/run.mjs and bench/stress.mjs report. */
export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
