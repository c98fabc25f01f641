// GROUP BY over keys with many groups in all but few in each zone (clustered keys): the table of
// groups pays per group of the whole query, DuckDB's hash aggregate per row. Per shape and query,
// .vtx pushed (the cost model deciding), pushed with the cost model off (the table of groups
// wherever the rules allow) and pushdown off, timed in turns; the plan says what ran.
//   node bench/group-count.mjs [--rows=10000000] [--runs=7] [--only=<part of a shape's name>]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table } from './common.mjs';

const args = parseArgs({ rows: 10_000_000, runs: 7, only: '' });
const dir = dataDir(`group-count-${args.rows}`);
const n = args.rows;
const clustered = (groups) => `'key-' || lpad((i * ${groups} // ${n})::VARCHAR, 6, '0')`;
// [name, key expression]; v and w are random values in every row.
const SHAPES = [
  ['strings, 3,000 groups, clustered', clustered(3000)],
  ['strings, 6,000 groups, clustered', clustered(6000)],
  ['strings, 10,000 groups, clustered', clustered(10000)],
  ['strings, 15,000 groups, clustered', clustered(15000)],
  ['strings, 30,000 groups, clustered', clustered(29941)],
  ['strings, 30,000 groups, runs out of order', `'key-' || lpad((((i // ${Math.max(1, Math.floor(n / 29941))}) * 7919) % 29941)::VARCHAR, 6, '0')`],
  ['integers, 10,000 groups, sorted', `(i * 10000 // ${n})::BIGINT`],
  ['integers, 30,000 groups, sorted', `(i * 29941 // ${n})::BIGINT`],
  ['integers, 30,000 groups, runs of 100 at random', `(hash(i // 100) % 29941)::BIGINT`],
];
const QUERIES = [
  ['count(*)', (t) => `SELECT g, count(*) FROM ${t} GROUP BY 1`],
  ['sum(v), Top-N', (t) => `SELECT g, sum(v) FROM ${t} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`],
  ['max(v), max(w), min(w)', (t) => `SELECT g, max(v), max(w), min(w) FROM ${t} GROUP BY 1 ORDER BY 1`],
];
const MODES = {
  pushed: ['SET vortex_pushdown = true', 'RESET vortex_pushdown_cost_based'],
  'no cost model': ['SET vortex_pushdown = true', 'SET vortex_pushdown_cost_based = false'],
  off: ['SET vortex_pushdown = false', 'RESET vortex_pushdown_cost_based'],
};

const { conn } = await connect();
console.log(`# GROUP BY with many groups in all, ${n.toLocaleString()} rows; ${machine()}`);
const rows = [];
for (const [shape, key] of SHAPES.filter(([name]) => name.includes(args.only))) {
  const file = join(dir, `${shape.replace(/[^a-z0-9]+/gi, '-')}.vtx`);
  if (!existsSync(file)) {
    await conn.run(`COPY (SELECT ${key} AS g, (hash(i) % 1000)::BIGINT AS v, (hash(i * 3) % 1000)::BIGINT AS w
      FROM range(${n}) r(i)) TO ${q(file)} (FORMAT vortex)`);
  }
  const src = `vortex_scan(${q(file)})`;
  for (const [name, sql] of QUERIES) {
    const t = Object.fromEntries(Object.keys(MODES).map((m) => [m, []]));
    for (let r = -1; r < args.runs; r++) {
      for (const [mode, settings] of Object.entries(MODES)) {
        for (const s of settings) await conn.run(s);
        const start = performance.now();
        await conn.runAndReadAll(sql(src));
        if (r >= 0) t[mode].push(performance.now() - start);
      }
    }
    for (const s of MODES.pushed) await conn.run(s);
    const plan = (await conn.runAndReadAll(`EXPLAIN ${sql(src)}`)).getRowsJS().map((row) => String(row[1])).join('\n');
    const path = plan.includes('Grouped As') ? 'sorted runs' : plan.includes('VORTEX_SCAN_GROUPED') ? 'table of groups' : 'DuckDB';
    const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const [p, c, o] = ['pushed', 'no cost model', 'off'].map((m) => med(t[m]));
    rows.push([shape, name, path, fmtMs(p), fmtMs(c), fmtMs(o), (p / o).toFixed(2), (c / o).toFixed(2)]);
  }
}
console.log(table([['shape', 'query', 'pushed as', 'pushed', 'no cost model', 'off', 'pushed / off', 'no cost model / off'], ...rows]));
