// Concurrency: many connections of one database running a mix of pushed aggregates, queries
// that are not pushed, filtered scans and COPYs to distinct files, all at once, give the same
// answers as the same queries run one after another; a file replaced while others read it is
// seen whole, old or new; and memory stays flat over thousands of queries.
//   VORTEX_SOAK=full   8 x 250 parallel queries and a 10,000-query memory soak (CI: 8 x 50, 3,000)
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerVortex } from '../src/index';
import { isPushed, sqlString, tempDir } from './helpers';
import { canonical } from './workers/canonical';

const FULL = process.env.VORTEX_SOAK === 'full';
const CONNECTIONS = 8;
const PER_CONNECTION = FULL ? 250 : 50;
const SOAK_QUERIES = FULL ? 10_000 : 3_000;

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

async function answer(conn: DuckDBConnection, sql: string): Promise<string> {
  return canonical((await conn.runAndReadAll(sql)).getRowsJS());
}

describe('concurrent connections', () => {
  const dir = tempDir('vtx-conc-');
  const big = join(dir, 'big.vtx');
  const small = join(dir, 'small.vtx');
  const glob = join(dir, 'part-*.vtx');
  let instance: DuckDBInstance;
  let queries: Array<{ kind: string; sql: string }>;
  let serial: string[];

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    await registerVortex(conn);
    await conn.run(`COPY (SELECT i AS id, (i * 7919) % 100003 AS x, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 1000 END::INTEGER AS n,
        i / 3 AS d, 'k' || (i % 97) AS s, (i % 50000 / 100)::DECIMAL(9,2) AS m FROM range(600000) r(i))
      TO ${sqlString(big)} (FORMAT vortex, ROW_GROUP_SIZE 50000)`);
    await conn.run(`COPY (SELECT i AS id, i % 5 AS g FROM range(5000) r(i)) TO ${sqlString(small)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    for (let p = 0; p < 4; p++) {
      await conn.run(`COPY (SELECT i AS id, ${p} AS p FROM range(${p * 10000}, ${(p + 1) * 10000}) r(i)) TO ${sqlString(join(dir, `part-${p}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 2500)`);
    }
    const B = `vortex_scan(${sqlString(big)})`;
    const S = `vortex_scan(${sqlString(small)})`;
    const G = `vortex_scan(${sqlString(glob)})`;
    queries = [
      { kind: 'pushed', sql: `SELECT count(*), sum(x), min(x), max(x), avg(n), count(n) FROM ${B}` },
      { kind: 'pushed', sql: `SELECT sum(m), min(s), max(s), sum(d) FROM ${B}` },
      { kind: 'pushed', sql: `SELECT count(*), sum(id), max(p) FROM ${G}` },
      { kind: 'pushed', sql: `SELECT min(id), max(g) FROM ${S}` },
      { kind: 'pushed', sql: `SELECT s, count(*), sum(x) FROM ${B} GROUP BY s ORDER BY s` }, // dictionary-coded key, 97 values
      { kind: 'not pushed', sql: `SELECT x, count(*) FROM ${B} GROUP BY x ORDER BY x LIMIT 20` }, // a group per few rows
      { kind: 'not pushed', sql: `SELECT count(DISTINCT n), sum(x + 1), max(d) FROM ${B}` },
      { kind: 'pushed', sql: `SELECT p, count(*), sum(id) FROM ${G} GROUP BY p ORDER BY p` }, // p is one value per file
      { kind: 'pushed filtered', sql: `SELECT count(*), sum(x), min(id) FROM ${B} WHERE id BETWEEN 123456 AND 234567` },
      { kind: 'filtered', sql: `SELECT id, x, n, s FROM ${B} WHERE id >= 599990 ORDER BY id` },
      { kind: 'pushed filtered', sql: `SELECT count(*) FROM ${B} WHERE s = 'k42' AND n > 500` },
      { kind: 'pushed filtered', sql: `SELECT sum(id) FROM ${G} WHERE id % 7 = 0 AND p >= 2` }, // an expression the scan takes
      { kind: 'filtered', sql: `SELECT sum(id) FROM ${G} WHERE id * id > 0 AND p >= 2` }, // may overflow: DuckDB's
      { kind: 'scan', sql: `SELECT sum(hash(id, x, n, s)) FROM ${B}` },
      { kind: 'scan', sql: `SELECT * FROM ${S} ORDER BY id DESC LIMIT 7` },
      { kind: 'join', sql: `SELECT count(*), sum(b.x) FROM ${S} a JOIN ${B} b ON a.id = b.id` },
    ];
    serial = [];
    for (const q of queries) serial.push(await answer(conn, q.sql));
  });

  it('the mix holds pushed and not pushed queries', async () => {
    const conn = await instance.connect();
    for (const q of queries) expect(await isPushed(conn, q.sql), q.sql).toBe(q.kind.startsWith('pushed'));
  });

  it(`${CONNECTIONS} connections x ${PER_CONNECTION} mixed queries in parallel answer as serial runs do`, async () => {
    const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => instance.connect()));
    const mismatches: string[] = [];
    const counts = new Map<string, number>();
    const started = performance.now();
    await Promise.all(conns.map(async (conn, c) => {
      const next = rng(1000 + c);
      for (let k = 0; k < PER_CONNECTION; k++) {
        if (next() < 0.12) {
          // A COPY to a file of its own, read back at once.
          const file = join(dir, `copy-${c}-${k}.vtx`);
          const lo = Math.floor(next() * 100000);
          await conn.run(`COPY (SELECT id, x, s FROM vortex_scan(${sqlString(big)}) WHERE id >= ${lo} AND id < ${lo + 20000} ORDER BY id)
            TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
          const got = await answer(conn, `SELECT count(*), sum(id), sum(x), min(s) FROM vortex_scan(${sqlString(file)})`);
          const want = await answer(conn, `SELECT count(*), sum(id), sum(x), min(s) FROM vortex_scan(${sqlString(big)}) WHERE id >= ${lo} AND id < ${lo + 20000}`);
          if (got !== want) mismatches.push(`COPY ${file}: ${got} != ${want}`);
          counts.set('copy', (counts.get('copy') ?? 0) + 1);
          rmSync(file);
          continue;
        }
        const i = Math.floor(next() * queries.length);
        const got = await answer(conn, queries[i].sql);
        if (got !== serial[i]) mismatches.push(`${queries[i].sql}: ${got.slice(0, 200)} != ${serial[i].slice(0, 200)}`);
        counts.set(queries[i].kind, (counts.get(queries[i].kind) ?? 0) + 1);
      }
    }));
    const ms = performance.now() - started;
    console.log(`concurrency: ${CONNECTIONS} connections x ${PER_CONNECTION} queries in ${(ms / 1000).toFixed(1)} s: ` +
      [...counts].map(([k, n]) => `${n} ${k}`).join(', ') + `; ${mismatches.length} mismatches`);
    expect(mismatches).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-') || f.startsWith('tmp_'))).toEqual([]);
  });

  it('a file rewritten while other connections read it is read whole, old or new', async () => {
    const shared = join(dir, 'shared.vtx');
    const writer = await instance.connect();
    const version = (v: number) => `COPY (SELECT i AS id, ${v} AS v FROM range(${20000 + v * 1000}) r(i)) TO ${sqlString(shared)} (FORMAT vortex, ROW_GROUP_SIZE 3000)`;
    await writer.run(version(0));
    const readers = await Promise.all(Array.from({ length: CONNECTIONS - 1 }, () => instance.connect()));
    let writing = true;
    const bad: string[] = [];
    const seen = new Set<string>();
    const readerLoops = readers.map(async (conn, r) => {
      while (writing) {
        // Pushed (footer only) and scanned answers must each describe one whole version.
        const sql = r % 2 ? `SELECT count(*), min(v), max(v), sum(id) FROM vortex_scan(${sqlString(shared)})`
          : `SELECT count(*), min(v), max(v), sum(id) FROM vortex_scan(${sqlString(shared)}) WHERE id >= 0`;
        const [[n, lo, hi, sum]] = (await conn.runAndReadAll(sql)).getRowsJS() as Array<Array<bigint | number>>;
        const v = Number(lo);
        const rowsOf = BigInt(20000 + v * 1000);
        if (lo !== hi || n !== rowsOf || BigInt(sum) !== (rowsOf * (rowsOf - 1n)) / 2n) bad.push(`${n} rows, v ${lo}..${hi}, sum ${sum}`);
        seen.add(`v${v}`);
      }
    });
    for (let v = 1; v <= (FULL ? 200 : 40); v++) await writer.run(version(v % 6));
    writing = false;
    await Promise.all(readerLoops);
    console.log(`rewrite under readers: versions seen ${[...seen].sort().join(', ')}; ${bad.length} torn reads`);
    expect(bad).toEqual([]);
  });

  it('in a glob of many files (opened one at a time) a replaced file is read whole or the query says it was replaced', async () => {
    const many = join(dir, 'many');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(many, { recursive: true });
    const writer = await instance.connect();
    const version = (f: number, v: number) => `COPY (SELECT i AS id, ${v} AS v FROM range(${1000 + v * 100}) r(i)) TO ${sqlString(join(many, `m${String(f).padStart(3, '0')}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 300)`;
    for (let f = 0; f < 70; f++) await writer.run(version(f, 0));
    const readers = await Promise.all(Array.from({ length: 4 }, () => instance.connect()));
    let writing = true;
    const bad: string[] = [];
    let replacedErrors = 0;
    let reads = 0;
    const loops = readers.map(async (conn) => {
      while (writing) {
        try {
          // Not pushed (a filter on the scan): every zone of every file is read.
          const [[n, lo, hi]] = (await conn.runAndReadAll(`SELECT count(*), min(v), max(v) FROM vortex_scan(${sqlString(join(many, '*.vtx'))}) WHERE id >= 0 AND v <= 100`)).getRowsJS() as bigint[][];
          const v = Number(hi);
          if (Number(lo) !== 0 || n !== BigInt(69 * 1000 + 1000 + v * 100)) bad.push(`${n} rows, v ${lo}..${hi}`);
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          if (/was replaced/.test(msg)) replacedErrors++;
          else bad.push(msg.split('\n')[0]);
        }
        reads++;
      }
    });
    for (let v = 1; v <= (FULL ? 100 : 25); v++) await writer.run(version(35, v % 4));
    writing = false;
    await Promise.all(loops);
    console.log(`glob of 70 files, one rewritten under readers: ${reads} reads, ${replacedErrors} "was replaced" errors, ${bad.length} torn reads`);
    expect(bad).toEqual([]);
  });

  it(`memory stays flat over ${SOAK_QUERIES} queries`, async () => {
    const conn = await instance.connect();
    // Every kind of query, on the smaller files so that the soak measures per-query cost, not
    // scan volume; a COPY every 50 queries exercises the writer too.
    const S = `vortex_scan(${sqlString(small)})`;
    const G = `vortex_scan(${sqlString(glob)})`;
    const mix = [
      ...queries.filter((q) => q.kind === 'pushed').map((q) => q.sql),
      `SELECT count(*), sum(x) FROM vortex_scan(${sqlString(big)}) WHERE id BETWEEN 5000 AND 60000`,
      `SELECT g, count(*), sum(id) FROM ${S} GROUP BY g ORDER BY g`,
      `SELECT * FROM ${S} WHERE id % 100 = 7 ORDER BY id`,
      `SELECT p, max(id) FROM ${G} GROUP BY p ORDER BY p`,
      `SELECT count(*) FROM ${G} WHERE id > 25000`,
    ];
    const copyTarget = join(dir, 'soak.vtx');
    const rss = () => process.memoryUsage().rss / 2 ** 20;
    const samples: number[] = [];
    const next = rng(7);
    const started = performance.now();
    for (let k = 0; k < SOAK_QUERIES; k++) {
      if (k % 50 === 49) {
        await conn.run(`COPY (SELECT id, g FROM ${S} WHERE id < ${1000 + k % 1000}) TO ${sqlString(copyTarget)} (FORMAT vortex, ROW_GROUP_SIZE 300)`);
      } else {
        await conn.runAndReadAll(mix[Math.floor(next() * mix.length)]);
      }
      if (k % 250 === 0) samples.push(rss());
    }
    samples.push(rss());
    // After the first third (caches and allocator pools warm), memory must not creep upwards: a
    // leak of a few KB per query would show as tens of MB between the low point and the end. The
    // end's lowest sample counts, not its highest: where memory falls back towards the end (the
    // allocator returning pages), the low point lies inside the end, and a fall read as growth.
    const after = samples.slice(Math.floor(samples.length / 3));
    const end = after.slice(-3);
    const growth = Math.min(...end) - Math.min(...after);
    console.log(`memory soak: ${SOAK_QUERIES} queries in ${((performance.now() - started) / 1000).toFixed(1)} s, RSS MB every 250: ` +
      `${samples.map((m) => m.toFixed(0)).join(' ')}; end minus low point after warm-up ${growth.toFixed(1)} MB`);
    expect(growth).toBeLessThan(FULL ? 96 : 64);
  });
});
