// The segment cache (native/format/file/segment_cache.hpp): the same query again and again with
// vortex_segment_cache on and off, alternating in one process, over
//   - a text column that fits the cache (TPC-H-like comments, --rows rows), and
//   - one several times larger than its 256 MiB (md5 strings, --large rows), where the cache must
//     keep the part that fits rather than replace every segment on every scan.
// node bench/segment-cache.mjs [--rows=1500000] [--large=20000000] [--runs=9]
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { connect, dataDir, fmtMs, machine, parseArgs, q, table } from './common.mjs';

const args = parseArgs({ rows: 1_500_000, large: 20_000_000, runs: 9 });
const dir = dataDir('segment-cache');
const { conn } = await connect();

const cases = [
  {
    name: `comments, ${args.rows.toLocaleString()} rows (fits)`,
    file: join(dir, `comments-${args.rows}.vtx`),
    source: `SELECT i AS id, concat_ws(' ', md5(i::VARCHAR)[1:6], 'special', md5((i * 7)::VARCHAR)[1:9], 'deposits',
      CASE WHEN i % 13 = 0 THEN 'requests' ELSE 'packages' END, md5((i * 3)::VARCHAR)[1:12]) AS comment FROM range(${args.rows}) r(i)`,
    sql: (f) => `SELECT count(*) FROM vortex_scan(${q(f)}) WHERE comment NOT LIKE '%special%requests%'`,
  },
  {
    name: `md5, ${args.large.toLocaleString()} rows (larger than the cache)`,
    file: join(dir, `md5-${args.large}.vtx`),
    source: `SELECT md5(i::VARCHAR) AS s FROM range(${args.large}) r(i)`,
    sql: (f) => `SELECT count(*) FROM vortex_scan(${q(f)}) WHERE s LIKE '%abc%'`,
  },
];

console.log(`# segment cache: ${args.runs} runs each, on and off alternating (medians after one warm-up round); ${machine()}\n`);
const out = [['case', 'cache on', 'cache off', 'off/on']];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const c of cases) {
  if (!existsSync(c.file)) await conn.run(`COPY (${c.source}) TO ${q(c.file)} (FORMAT vortex)`);
  const times = { on: [], off: [] };
  for (let i = 0; i <= args.runs; i++) {
    for (const k of i % 2 ? ['off', 'on'] : ['on', 'off']) {
      await conn.run(`SET vortex_segment_cache = ${k === 'on'}`);
      const start = process.hrtime.bigint();
      await conn.runAndReadAll(c.sql(c.file));
      if (i > 0) times[k].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const on = median(times.on), off = median(times.off);
  out.push([c.name, fmtMs(on), fmtMs(off), `${(off / on).toFixed(2)}x`]);
}
console.log(table(out));
