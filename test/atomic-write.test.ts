// Atomic writes: a COPY ... (FORMAT vortex) killed with SIGKILL at a random moment leaves, at
// the target, either the old file byte for byte (or no file, if there was none) or the new file
// complete — never a partial one. Whatever else it leaves behind is a temporary file whose name
// says so: "<target>.tmp-<16 hex digits>" (ours) or DuckDB's own "tmp_<name>" (COPY's USE_TMP_FILE).
//   VORTEX_KILL_ROUNDS=n   kills per scenario (default 3)
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerVortex } from '../src/index';
import { sqlString, tempDir } from './helpers';
import { onLines, spawnWorker } from './workers/spawn';

const ROUNDS = Number(process.env.VORTEX_KILL_ROUNDS ?? 3);
const ROWS = 1_500_000;
const TEMP_NAME = /^(tmp_.*|.*\.tmp-[0-9a-f]{16})$/;

/** Deterministic delays, so a failure can be replayed. */
function* delays(seed: number, maxMs: number): Generator<number> {
  let x = Math.imul(seed, 0x9e3779b1) >>> 0 || 1;
  for (let warm = 0; ; warm++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    if (warm >= 4) yield Math.round((x / 0xffffffff) * maxMs);
  }
}

interface Run {
  killedAfterMs: number | null; // null: the COPY finished first
  elapsedMs?: number;
}

/** Starts a COPY in a child and kills it `delayMs` after it starts (or lets it finish). */
function copyAndKill(target: string, value: number, delayMs: number | null, extra = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnWorker('copy-worker.ts', [target, String(ROWS), String(value), extra]);
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let result: Run = { killedAfterMs: null };
    child.stderr?.on('data', (d) => (stderr += d));
    onLines(child.stdout, (line) => {
      if (line === 'ready' && delayMs !== null) {
        timer = setTimeout(() => {
          result = { killedAfterMs: delayMs };
          child.kill('SIGKILL');
        }, delayMs);
      } else if (line.startsWith('done ')) {
        result = { killedAfterMs: null, elapsedMs: Number(line.slice(5)) };
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' || code === 0) return resolve(result);
      reject(new Error(`copy worker exited with ${code ?? signal}: ${stderr}`));
    });
  });
}

describe('a COPY killed at a random moment', () => {
  const dir = tempDir('vtx-kill-');
  let conn: DuckDBConnection;
  let copyMs = 0;

  beforeAll(async () => {
    conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    // How long the COPY takes when nobody interrupts it (kills are spread over this time).
    const probe = join(dir, 'probe.vtx');
    const run = await copyAndKill(probe, 1, null);
    copyMs = run.elapsedMs ?? 1000;
    rmSync(probe, { force: true });
  });

  async function readsAs(file: string): Promise<'new' | 'old' | string> {
    try {
      const [[n, v, good]] = (await conn.runAndReadAll(
        `SELECT count(*), (min(v) * 1000 + max(v))::BIGINT, count(*) FILTER (WHERE s = md5(id::VARCHAR)) FROM vortex_scan(${sqlString(file)})`,
      )).getRowsJS() as bigint[][];
      if (n === BigInt(ROWS) && good === n && v === 2002n) return 'new';
      if (v === 1001n && good === n) return `old (${n} rows)`;
      return `unexpected content: ${n} rows, v ${v}, ${good} good`;
    } catch (e) {
      return `unreadable: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  const scenarios: Array<[name: string, existing: boolean, extra: string]> = [
    ['over an existing file (DuckDB default, USE_TMP_FILE true)', true, ''],
    ['over an existing file, USE_TMP_FILE false', true, 'USE_TMP_FILE false'],
    ['to a new file, USE_TMP_FILE false', false, 'USE_TMP_FILE false'],
    ['to a new file (DuckDB default)', false, ''],
  ];

  scenarios.forEach(([name, existing, extra], s) => {
    it(`${name}: old file or complete new file, never a partial one`, async () => {
      const sub = join(dir, `s${s}`);
      mkdirSync(sub, { recursive: true });
      const target = join(sub, 'target.vtx');
      const outcomes: string[] = [];
      const leftovers = new Set<string>();
      // From the start of the COPY to well past its usual end: both sides of the final rename.
      const gen = delays(17 + s, Math.round(copyMs * 2));
      for (let round = 0; round < ROUNDS; round++) {
        rmSync(target, { force: true });
        let old: Buffer | null = null;
        if (existing) {
          await conn.run(`COPY (SELECT i AS id, 1 AS v, md5(i::VARCHAR) AS s FROM range(${1000 + round}) r(i)) TO ${sqlString(target)} (FORMAT vortex)`);
          old = readFileSync(target);
        }
        const delay = gen.next().value as number;
        const run = await copyAndKill(target, 2, delay, extra);
        let state: string;
        if (!existsSync(target)) {
          state = 'no file';
          expect(old, `round ${round}: the old file vanished (killed after ${delay} ms)`).toBeNull();
        } else if (old && readFileSync(target).equals(old)) {
          state = 'old file';
        } else {
          state = await readsAs(target);
          expect(state, `round ${round}, killed after ${delay} ms`).toBe('new');
          state = 'new file';
        }
        for (const f of readdirSync(sub)) {
          if (f === basename(target)) continue;
          expect(f, `round ${round}: leftover with an unrecognisable name`).toMatch(TEMP_NAME);
          leftovers.add(f.replace(/[0-9a-f]{16}$/, '<16 hex>'));
          rmSync(join(sub, f), { force: true });
        }
        outcomes.push(`${run.killedAfterMs === null ? `finished in ${run.elapsedMs} ms` : `killed at ${delay} ms`}: ${state}`);
      }
      // Leftovers do not get in the way of the next COPY.
      await conn.run(`COPY (SELECT 42 AS x) TO ${sqlString(target)} (FORMAT vortex${extra ? `, ${extra}` : ''})`);
      expect((await conn.runAndReadAll(`SELECT x FROM vortex_scan(${sqlString(target)})`)).getRowsJS()).toEqual([[42]]);
      console.log(`${name} (uninterrupted COPY: ${copyMs} ms):\n  ${outcomes.join('\n  ')}\n  leftovers seen: ${[...leftovers].join(', ') || 'none'}`);
    });
  });
});
