// Corruption sweep: a small multi-type, multi-zone .vtx file (format version 5: it has a struct
// holding a list, floats and key-value metadata), changed one byte at a time at
// every offset and truncated to every length, each read by a full scan, a filtered scan and a
// pushed aggregate in a child process. Every outcome must be the right answer (the byte was
// not read by that query) or a DuckDB error naming the file; a crash, a hang, a wrong answer
// or an error that does not name the file fails the test.
//
//   npm test                                   CI size: 3 changes per offset, every truncation
//   VORTEX_SWEEP=exhaustive npx vitest run test/corruption-sweep.test.ts
//                                              all 255 changes per offset (hours)
//   VORTEX_SWEEP=<n>                           n changes per offset
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isPushed, openDb, sqlString, tempDir } from './helpers';
import { canonical } from './workers/canonical';
import type { SweepJob } from './workers/sweep-worker';
import { onLines, spawnWorker } from './workers/spawn';

const MODE = process.env.VORTEX_SWEEP ?? 'ci';
// CI: flip the lowest bit, the highest bit, and every bit of each byte.
const CI_FLIPS = [0x01, 0x80, 0xff];
const WORKERS = 2;
const HANG_MS = 60_000; // no progress for this long = a hang

const SOURCE = `
  SELECT i::BIGINT AS id,
         CASE WHEN i % 7 = 3 THEN NULL ELSE (i * 37) % 1000 END::INTEGER AS n,
         CASE WHEN i = 17 THEN 'nan'::DOUBLE WHEN i = 33 THEN 'inf'::DOUBLE ELSE i / 8 END AS d,
         ['red', 'green', 'blue'][i % 3 + 1] AS s,
         repeat(chr(97 + (i % 26)::INTEGER), 70) || i AS l,
         ((i // 10) * 1.25)::DECIMAL(9,2) AS k,
         i % 3 = 0 AS b,
         CASE WHEN i >= 100 THEN NULL ELSE DATE '2024-01-01' + (i // 40)::INTEGER END AS t,
         md5(i::VARCHAR) AS h,
         CASE WHEN i % 9 = 4 THEN NULL ELSE {'a': i % 5, 'l': CASE WHEN i % 4 = 0 THEN NULL ELSE [i % 3, NULL] END} END AS st
  FROM range(120) r(i)`;

// $FILE is replaced by the quoted path.
const QUERIES = [
  `SELECT * FROM vortex_scan($FILE)`,
  `SELECT count(*), count(n), sum(n), max(n) FROM vortex_scan($FILE) WHERE id BETWEEN 45 AND 70`,
  `SELECT count(*), sum(id), min(id), max(id), count(n), sum(n), avg(k), min(s), max(l), min(t), max(t), sum(d), count(st), sum(st.a) FROM vortex_scan($FILE)`,
];
const PUSHED_QUERY = 2;

interface Outcome {
  ok: number;
  errors: number;
  wrong: string[];
  unnamed: string[];
  crashes: string[];
  reasons: Map<string, number>;
}

type Case = SweepJob['cases'][number];

function describeCase(c: Case): string {
  return c[0] === 'trunc' ? `truncate to ${c[1]} bytes` : c[0] === 'flip' ? `byte ${c[1]} ^= 0x${c[2].toString(16)}` : `byte ${c[1]} = 0x${c[2].toString(16)}`;
}

/** Runs the cases in one child; restarts it after a crash or hang, recording the culprit. */
function runWorker(base: string, dir: string, cases: Case[], record: (c: Case, results: string[] | 'crash', why?: string) => void,
  expectedBase: (q: string[]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0; // index into cases of the next case without an answer
    const start = () => {
      if (next >= cases.length) return resolve();
      const child = spawnWorker('sweep-worker.ts');
      let stderr = '';
      let timer: NodeJS.Timeout;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          stderr += `\n(no progress for ${HANG_MS} ms: killed)`;
          child.kill('SIGKILL');
        }, HANG_MS);
      };
      arm();
      onLines(child.stdout, (line) => {
        if (!line.startsWith('{')) return;
        const msg = JSON.parse(line) as { i: number; q: string[] };
        arm();
        if (msg.i === -1) return expectedBase(msg.q);
        const c = cases[next];
        if (!c || c[3] !== msg.i) return reject(new Error(`sweep worker answered case ${msg.i}, expected ${c?.[3]}`));
        record(c, msg.q);
        next++;
      });
      child.stderr?.on('data', (d) => (stderr += d));
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (next >= cases.length && code === 0) return resolve();
        if (code === 3) return reject(new Error(`sweep worker failed before any case: ${stderr}`));
        // The case in progress when the child died is the culprit.
        record(cases[next], 'crash', `exit ${code ?? signal}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
        next++;
        start();
      });
      const job: SweepJob = { base, dir, cases: cases.slice(next), queries: QUERIES };
      child.stdin?.end(JSON.stringify(job));
    };
    start();
  });
}

describe('corruption sweep', () => {
  const dir = tempDir('vtx-sweep-');
  const base = join(dir, 'base.vtx');
  let conn: DuckDBConnection;
  let expected: string[];

  beforeAll(async () => {
    ({ conn } = await openDb());
    await conn.run(`CREATE TABLE src AS ${SOURCE}`);
    await conn.run(`COPY (SELECT * FROM src ORDER BY id) TO ${sqlString(base)} (FORMAT vortex, ROW_GROUP_SIZE 40, KV_METADATA {origin: 'sweep', n: 2})`);
    expected = [];
    for (const q of QUERIES) {
      const sql = q.replaceAll('vortex_scan($FILE)', '(SELECT * FROM src ORDER BY id)');
      expected.push(canonical((await conn.runAndReadAll(sql)).getRowsJS()));
    }
  });

  it('the swept file covers zones, encodings, compression, NULLs and inexact statistics, and its aggregate is pushed', async () => {
    const meta = (await conn.runAndReadAll(`SELECT count(*) FROM vortex_scan(${sqlString(base)})`)).getRowsJS();
    expect(meta).toEqual([[120n]]);
    const layout = (await conn.runAndReadAll(`SELECT count(DISTINCT zone), list(DISTINCT encoding ORDER BY encoding), list(DISTINCT codec ORDER BY codec),
        bool_or(NOT min_max_exact), sum(null_count) > 0 FROM vortex_metadata(${sqlString(base)})`)).getRowsJS();
    // d is ALP with exceptions (NaN, inf); l compresses with lz4 about as well as with zstd, h only with zstd.
    expect(layout).toEqual([[3n, ['alp', 'constant', 'dictionary', 'for+bitpack', 'plain', 'rle'], ['lz4', 'none', 'zstd'], true, true]]);
    expect(await isPushed(conn, QUERIES[PUSHED_QUERY].replaceAll('$FILE', sqlString(base)))).toBe(true);
    // The filtered aggregate is pushed too (filters inside the scan): the sweep covers that path.
    expect(await isPushed(conn, QUERIES[1].replaceAll('$FILE', sqlString(base)))).toBe(true);
  });

  it('every single-byte change and every truncation: the right answer or an error naming the file', async () => {
    const size = readFileSync(base).length;
    const cases: Case[] = [];
    let index = 0;
    for (let len = 0; len < size; len++) cases.push(['trunc', len, 0, index++]);
    const bytes = readFileSync(base);
    const n = MODE === 'exhaustive' ? 255 : /^\d+$/.test(MODE) ? Number(MODE) : CI_FLIPS.length;
    for (let off = 0; off < size; off++) {
      if (MODE === 'exhaustive') {
        for (let v = 0; v < 256; v++) if (v !== bytes[off]) cases.push(['set', off, v, index++]);
      } else {
        const flips = n <= CI_FLIPS.length ? CI_FLIPS.slice(0, n) : Array.from({ length: n }, (_, k) => k + 1);
        for (const f of flips) cases.push(['flip', off, f, index++]);
      }
    }

    const perQuery: Outcome[] = QUERIES.map(() => ({ ok: 0, errors: 0, wrong: [], unnamed: [], crashes: [], reasons: new Map() }));
    const record = (c: Case, results: string[] | 'crash', why?: string) => {
      for (let k = 0; k < QUERIES.length; k++) {
        const o = perQuery[k];
        if (results === 'crash') {
          o.crashes.push(`${describeCase(c)}: ${why}`);
          continue;
        }
        const r = results[k];
        if (r === 'ok') o.ok++;
        else if (r.startsWith('wrong:')) o.wrong.push(`${describeCase(c)}: ${r}`);
        else if (r.startsWith('E:UNNAMED ')) o.unnamed.push(`${describeCase(c)}: ${r.slice(10)}`);
        else {
          o.errors++;
          // "vortex: file "$FILE" is not a valid .vtx file: footer checksum mismatch (...)" -> "footer checksum mismatch"
          const reason = r.slice(2).split('\n')[0].replace(/^.*?is not a valid \.vtx file: /, '').replace(/ \(.*$/, '').replace(/\d+/g, 'N');
          o.reasons.set(reason, (o.reasons.get(reason) ?? 0) + 1);
        }
      }
    };
    const checkBase = (q: string[]) => expect(q).toEqual(expected);

    const work = join(dir, 'cases');
    mkdirSync(work, { recursive: true });
    const started = Date.now();
    const shards = Array.from({ length: WORKERS }, (_, w) => cases.filter((_, k) => k % WORKERS === w));
    await Promise.all(shards.map((s, w) => {
      const wdir = join(work, `w${w}`);
      mkdirSync(wdir, { recursive: true });
      return runWorker(base, wdir, s, record, checkBase);
    }));
    const seconds = (Date.now() - started) / 1000;

    const names = ['full scan', 'filtered scan', 'pushed aggregate'];
    const lines = [`corruption sweep (${MODE}): file of ${size} bytes, ${cases.length} cases ` +
      `(${size} truncations + ${cases.length - size} byte changes) x ${QUERIES.length} queries = ${cases.length * QUERIES.length} runs in ${seconds.toFixed(1)} s`];
    for (let k = 0; k < QUERIES.length; k++) {
      const o = perQuery[k];
      lines.push(`  ${names[k]}: ${o.ok} right answers, ${o.errors} errors naming the file, ${o.wrong.length} wrong answers, ` +
        `${o.unnamed.length} errors not naming the file, ${o.crashes.length} crashes`);
    }
    const reasons = new Map<string, number>();
    for (const o of perQuery) for (const [r, c] of o.reasons) reasons.set(r, (reasons.get(r) ?? 0) + c);
    lines.push('  errors by reason:');
    for (const [r, c] of [...reasons].sort((a, b) => b[1] - a[1])) lines.push(`    ${String(c).padStart(7)}  ${r}`);
    console.log(lines.join('\n'));

    for (const o of perQuery) {
      expect(o.crashes, 'crashes').toEqual([]);
      expect(o.wrong, 'wrong answers').toEqual([]);
      expect(o.unnamed, 'errors that do not name the file').toEqual([]);
      expect(o.ok + o.errors).toBe(cases.length);
    }
  }, 30 * 60_000 * (MODE === 'exhaustive' ? 40 : 1));
});
