import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

// The randomized sweep of bench/sweep.mjs (issue 54), small and for answers only: random tables
// (types, cardinality, sortedness, NULLs, zone sizes) and random query shapes, each answered with
// pushdown on, with everything clever off, over Parquet and over a DuckDB table, which must agree.
// Its timing runs live in the bench (`node bench/sweep.mjs --rows=1000000`).

describe('the randomized sweep, answers only', () => {
  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: pushed = off = Parquet = DuckDB's table`, () => {
      const r = spawnSync(process.execPath, [join(__dirname, '..', 'bench', 'sweep.mjs'), '--answers-only', '--rows=30000',
        '--queries=150', `--seed=${seed}`, `--dir=${tempDir('vtx-sweep-')}`], { encoding: 'utf8', timeout: 300_000 });
      const out = `${r.stdout}\n${r.stderr}`;
      expect(out, out).toMatch(/150 queries, 0 wrong answers/);
      expect(r.status, out).toBe(0);
    }, 320_000);
  }
});
