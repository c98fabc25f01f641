/**
 * Exact float sums in BigInt arithmetic, independent of the native code: every finite double is
 * an integer times 2^-1074, so their sum is an exact BigInt in those units, and roundRational
 * rounds a ratio of BigInts to the nearest double (ties to even). The coherence report and the
 * tests use it to say what a pushed float sum must be (rules.ts, FLOAT_SUM_PROMISE).
 */

/** The exact value of a finite double in units of 2^-1074. */
export function doubleUnits(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mantissa |= 1n << 52n;
  const value = mantissa << BigInt(biased === 0 ? 0 : biased - 1);
  return bits >> 63n ? -value : value;
}

/** 2^1074: one in units of 2^-1074. */
export const UNIT_SCALE = 1n << 1074n;

const bitLength = (v: bigint) => (v === 0n ? 0 : v.toString(2).length);

/** The double nearest to num / den (den > 0), ties to even; ±Infinity beyond the largest double. */
export function roundRational(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const negative = num < 0n;
  const n = negative ? -num : num;
  // e such that n / (den * 2^e) has 53 bits, but never below the grid of subnormals (2^-1074).
  let e = Math.max(bitLength(n) - bitLength(den) - 53, -1074);
  const divide = (shift: number) => {
    const [a, b] = shift >= 0 ? [n, den << BigInt(shift)] : [n << BigInt(-shift), den];
    return { q: a / b, r: a % b, b };
  };
  let { q, r, b } = divide(e);
  while (q >= 1n << 53n) {
    e += 1;
    ({ q, r, b } = divide(e));
  }
  if (2n * r > b || (2n * r === b && (q & 1n) === 1n)) q += 1n;
  const magnitude = Number(q) * 2 ** e; // q <= 2^53, and q * 2^e lies on the grid: one exact product
  return negative ? -magnitude : magnitude;
}

/**
 * DuckDB's sum and avg of `values` (NULL skipped) as the rules push them: NaN if any NaN or both
 * infinities, else the infinity, else the exact sum (and the exact mean) rounded once. `kahan`:
 * DuckDB's Kahan sums (fsum, favg), NaN also where any infinity occurs or the sum overflows.
 */
export function exactFloatAggregates(values: ReadonlyArray<number | null>, kahan = false): { sum: number | null; avg: number | null } {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return { sum: null, avg: null };
  const pos = present.includes(Infinity);
  const neg = present.includes(-Infinity);
  if (present.some(Number.isNaN) || (pos && neg) || (kahan && (pos || neg))) return { sum: NaN, avg: NaN };
  if (pos || neg) return { sum: pos ? Infinity : -Infinity, avg: pos ? Infinity : -Infinity };
  const total = present.reduce((acc, v) => acc + doubleUnits(v), 0n);
  const sum = roundRational(total, UNIT_SCALE);
  if (kahan && !Number.isFinite(sum)) return { sum: NaN, avg: NaN };
  return { sum, avg: roundRational(total, UNIT_SCALE * BigInt(present.length)) };
}
