import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { version } from '@duckdb/node-api';
import { loadAddon } from '../src/native';
import { UNIT_SCALE, doubleUnits, roundRational } from '../src/coherence/exact-float';

// The exact float aggregates' state (native/compute/compact_float_sum), driven directly through a
// test hook: values one by one, in batches and as repeated constants, into several states merged
// in any order, against the exact sum and mean computed here in BigInt arithmetic. The magnitudes
// are chosen to move the state's fixed-point grid down, past its top, and out to its spill.

type Step = [state: number, how: 0 | 1 | 2, values: number[], count: number];
interface Hooks {
  compactFloatSum(steps: Step[], merges: Array<[number, number]>): [number | null, number | null, number, string];
}
const hooks = (loadAddon(version()) as unknown as { __test: Hooks }).__test;

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261207);
const RUNS = Number(process.env.VORTEX_FC_RUNS ?? 300);

/** Values around one of a few scales, so that runs of them share a grid and then leave it. */
const scaled = fc
  .tuple(fc.constantFrom(-1074, -1060, -700, -60, -30, -7, 0, 20, 52, 60, 300, 1000, 1020), fc.double({ min: -2, max: 2, noNaN: true }))
  .map(([e, m]) => m * 2 ** e);
const value = fc.oneof(
  { weight: 6, arbitrary: scaled },
  { weight: 3, arbitrary: fc.integer({ min: -1e7, max: 1e7 }).map((c) => c / 100) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 2 ** 63, 2 ** 126, 1 / 3) },
);
/** A batch of values near one scale (prices, measurements): the levelled batch path takes it. */
const near = fc
  .tuple(fc.constantFrom(-1070, -1000, -60, -7, 0, 17, 40, 1000), fc.integer({ min: 0, max: 60 }))
  .chain(([e, spread]) =>
    fc.array(
      fc.oneof(
        { weight: 30, arbitrary: fc.double({ min: -2, max: 2, noNaN: true }).map((m) => m * 2 ** e) },
        { weight: 30, arbitrary: fc.tuple(fc.double({ min: -2, max: 2, noNaN: true }), fc.integer({ min: 0, max: spread })).map(([m, d]) => m * 2 ** (e - d)) },
        { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -0, 0, 2 ** (e + 70)) },
      ),
      { minLength: 900, maxLength: 2100 },
    ),
  );

// Engines repeat a constant at most a vector's rows at a time; larger counts are tried where the
// product stays within the doubles' range times 2^70 (the accumulator's headroom).
const step = fc
  .tuple(
    fc.integer({ min: 0, max: 3 }),
    fc.constantFrom<0 | 1 | 2>(0, 1, 2),
    fc.oneof(fc.array(value, { maxLength: 40 }), fc.array(value, { minLength: 1000, maxLength: 2500 }), near, near),
    fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(2 ** 40, 2 ** 53 - 1)),
  )
  .map(([s, how, values, count]): Step => [s, how, values, count > 5000 && Math.abs(values[0] ?? 0) >= 2 ** 960 ? count % 5000 : count]);
const merges = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).filter(([a, b]) => a !== b), { maxLength: 8 });

const big = (hex: string) => (hex.startsWith('-') ? -BigInt(hex.slice(1)) : BigInt(hex));
const shown = ([sum, mean, count, exact]: [number | null, number | null, number, string]) => [sum, mean, count, big(exact)];

/** State 0's values after the steps and merges, as (value, times) pairs. */
function contents(steps: Step[], order: Array<[number, number]>): Array<[number, bigint]> {
  const states: Array<Array<[number, bigint]>> = [[], [], [], []];
  for (const [s, how, values, count] of steps) {
    if (how === 2) {
      if (values.length) states[s].push([values[0], BigInt(count)]);
    } else for (const v of values) states[s].push([v, 1n]);
  }
  for (const [into, from] of order) states[into] = [...states[into], ...states[from]];
  return states[0];
}

describe('the exact float aggregates’ state', () => {
  it('returns the correctly rounded exact sum and mean, whatever the grid, spills and merges', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), merges, (steps, order) => {
        const [sum, mean, count, exact] = hooks.compactFloatSum(steps, order);
        const held = contents(steps, order);
        const n = held.reduce((acc, [, k]) => acc + k, 0n);
        expect(count).toBe(Number(n));
        const finite = held.filter(([v]) => Number.isFinite(v));
        const total = finite.reduce((acc, [v, k]) => acc + doubleUnits(v) * k, 0n);
        // Exact, not only once rounded: a value far below the sum's last digit still counts.
        expect(big(exact)).toBe(total);
        if (finite.length < held.length) {
          expect([sum, mean]).toEqual([null, null]); // NaN and infinities are noted apart
          return;
        }
        expect(sum).toBe(n ? roundRational(total, UNIT_SCALE) : 0);
        if (n) expect(mean).toBe(roundRational(total, UNIT_SCALE * n));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('is the same in any order of additions and merges', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 3000 }), fc.integer({ min: 1, max: 2999 }), (values, cut) => {
        const one = hooks.compactFloatSum([[0, 0, values, 0]], []);
        const reversed = hooks.compactFloatSum([[0, 1, [...values].reverse(), 0]], []);
        const split = hooks.compactFloatSum([[1, 1, values.slice(0, cut), 0], [0, 0, values.slice(cut), 0]], [[0, 1]]);
        expect(reversed).toEqual(one);
        expect(split).toEqual(one);
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3) },
    );
  });

  it('takes a batch a bit larger than the one before (the last batch’s bound no longer holds)', () => {
    for (const grow of [1, 2, 3, 60]) {
      const first = Array.from({ length: 1024 }, (_, i) => ((i * 7919) % 1000) / 997 - 0.5);
      const second = Array.from({ length: 1024 }, (_, i) => (((i * 104729) % 1000) / 991 + 0.75) * 2 ** grow + 2 ** -30);
      const [sum, , , exact] = hooks.compactFloatSum([[0, 1, first, 0], [0, 1, second, 0]], []);
      const total = [...first, ...second].reduce((acc, v) => acc + doubleUnits(v), 0n);
      expect(big(exact)).toBe(total);
      expect(sum).toBe(roundRational(total, UNIT_SCALE));
    }
  });

  it('rounds a mean a hair above a tie up (the remainder of the division counts)', () => {
    // n = 2^40 + 1 values averaging 2^53 + 1 + 1/n: the tie between 2^53 and 2^53 + 2, and a
    // little more that only the division's remainder shows.
    const steps: Step[] = [[0, 2, [2 ** 53 + 2], 2 ** 39 + 1], [1, 2, [2 ** 53], 2 ** 39]];
    const total = doubleUnits(2 ** 53 + 2) * (2n ** 39n + 1n) + doubleUnits(2 ** 53) * 2n ** 39n;
    const [, mean] = hooks.compactFloatSum(steps, [[0, 1]]);
    expect(mean).toBe(roundRational(total, UNIT_SCALE * (2n ** 40n + 1n)));
    expect(mean).toBe(2 ** 53 + 2);
  });

  it('notes NaN and infinities apart', () => {
    expect(shown(hooks.compactFloatSum([[0, 1, [1, NaN, 2], 0]], []))).toEqual([null, null, 3, doubleUnits(3)]);
    expect(shown(hooks.compactFloatSum([[1, 0, [Infinity], 0], [0, 0, [1], 0]], [[0, 1]]))).toEqual([null, null, 2, doubleUnits(1)]);
    expect(shown(hooks.compactFloatSum([[0, 2, [0.1], 10]], []))).toEqual([roundRational(doubleUnits(0.1) * 10n, UNIT_SCALE), 0.1, 10, doubleUnits(0.1) * 10n]);
  });
});
