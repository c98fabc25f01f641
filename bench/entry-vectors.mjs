// Run-length and dictionary-coded integers as DuckDB receives them from .vtx: per shape (run length,
// dictionary size) and query, .vtx with pushdown off (DuckDB's own operators over the scan's
// vectors) against Parquet. Run once per addon build (VORTEX_ADDON_PATH) to compare how the scan
// hands such columns on (column_emit.cpp: dictionary vectors or decoded values).
//   node bench/entry-vectors.mjs [--rows=10000000] [--runs=7] [--only=<part of a shape's name>]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table } from './common.mjs';

const args = parseArgs({ rows: 10_000_000, runs: 7, only: '' });
const dir = dataDir(`entry-vectors-${args.rows}`);
// x: the column under test; y: a second, small key; v: a value to sum.
const SHAPES = [
  ['runs of 2', `(hash(i // 2) >> 1)::BIGINT`],
  ['runs of 4', `(hash(i // 4) >> 1)::BIGINT`],
  ['runs of 8', `(hash(i // 8) >> 1)::BIGINT`],
  ['runs of 64', `(hash(i // 64) >> 1)::BIGINT`],
  ['dictionary of 100', `(hash(hash(i) % 100) >> 1)::BIGINT`],
  ['dictionary of 5,000', `(hash(hash(i) % 5000) >> 1)::BIGINT`],
  ['dictionary of 30,000', `(hash(hash(i) % 30000) >> 1)::BIGINT`],
];
const QUERIES = [
  ['x, count(*) GROUP BY x', (t) => `SELECT x, count(*) FROM ${t} GROUP BY x ORDER BY 2 DESC, 1 LIMIT 5`],
  ['count(DISTINCT x)', (t) => `SELECT count(DISTINCT x) FROM ${t}`],
  ['x, y, count(*) GROUP BY x, y', (t) => `SELECT x, y, count(*) FROM ${t} GROUP BY x, y ORDER BY 3 DESC, 1, 2 LIMIT 5`],
  ['y, count(DISTINCT x) GROUP BY y', (t) => `SELECT y, count(DISTINCT x) FROM ${t} GROUP BY y ORDER BY y`],
  ['sum(x::HUGEINT), max(v)', (t) => `SELECT sum(x::HUGEINT), max(v) FROM ${t}`],
  ['max(x - 1) WHERE v < 500', (t) => `SELECT max(x - 1) FROM ${t} WHERE v < 500`],
  ['Top-N by x', (t) => `SELECT x, v FROM ${t} ORDER BY x, v LIMIT 10`],
];

const { conn } = await connect();
await conn.run('SET vortex_pushdown = false');
await conn.run('SET vortex_pushdown_expressions = false');
console.log(`# .vtx run-length and dictionary columns through DuckDB, ${args.rows.toLocaleString()} rows, pushdown off; ${machine()}`);
console.log(`# addon: ${process.env.VORTEX_ADDON_PATH || 'the build for this DuckDB'}`);
const rows = [];
for (const [shape, expr] of SHAPES.filter(([name]) => name.includes(args.only))) {
  const base = join(dir, shape.replace(/[^a-z0-9]+/gi, '-'));
  if (!existsSync(`${base}.vtx`)) {
    const select = `SELECT ${expr} AS x, (i % 7)::INTEGER AS y, (hash(i * 3) % 1000)::INTEGER AS v FROM range(${args.rows}) r(i)`;
    await conn.run(`COPY (${select}) TO ${q(`${base}.vtx`)} (FORMAT vortex)`);
    await conn.run(`COPY (${select}) TO ${q(`${base}.parquet`)} (FORMAT parquet)`);
  }
  const encoding = (await conn.runAndReadAll(`SELECT string_agg(DISTINCT encoding, ',') FROM vortex_metadata(${q(`${base}.vtx`)}, verify := false) WHERE column_name = 'x'`)).getRowsJS()[0][0];
  for (const [name, sql] of QUERIES) {
    const t = { vtx: [], parquet: [] };
    const sources = { vtx: `vortex_scan(${q(`${base}.vtx`)})`, parquet: `read_parquet(${q(`${base}.parquet`)})` };
    for (const s of Object.keys(sources)) await conn.runAndReadAll(sql(sources[s]));
    for (let r = 0; r < args.runs; r++) {
      for (const s of Object.keys(sources)) {
        const start = performance.now();
        await conn.runAndReadAll(sql(sources[s]));
        t[s].push(performance.now() - start);
      }
    }
    const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    rows.push([`${shape} (${encoding})`, name, fmtMs(med(t.vtx)), fmtMs(med(t.parquet)), `${(med(t.parquet) / med(t.vtx)).toFixed(2)}`]);
  }
}
console.log(table([['shape (encoding of x)', 'query', 'vtx', 'parquet', 'parquet/vtx'], ...rows]));
