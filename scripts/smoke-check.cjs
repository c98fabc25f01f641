// The smoke test of one installed duckdb-vortex next to one @duckdb/node-api, run inside a project
// that installed both (scripts/smoke-lines.mjs copies it there; scripts/smoke-arm64.mjs runs it
// under qemu): registration, a COPY/scan round trip, a pushed, a grouped and a distinct aggregate,
// and a query under DuckDB's PRAGMA enable_verification. Every answer is compared with the one
// DuckDB computes itself over a native table of the same rows. Prints one JSON line.
'use strict';
const { DuckDBInstance, version } = require('@duckdb/node-api');
const { registerVortex } = require('duckdb-vortex');

const QUERIES = {
  roundtrip: 'SELECT * FROM {t} ORDER BY x',
  pushed: 'SELECT sum(x), count(*), min(k), max(k) FROM {t}',
  grouped: 'SELECT k, sum(x), count(*), max(s) FROM {t} GROUP BY k ORDER BY k',
  distinct: 'SELECT count(DISTINCT k) FROM {t}',
  verified: 'SELECT k, count(*), sum(x) FROM {t} WHERE x > 1000 GROUP BY k ORDER BY k',
};

(async () => {
  const conn = await (await DuckDBInstance.create()).connect();
  const registration = await registerVortex(conn);
  await conn.run("CREATE TABLE native AS SELECT range AS x, (range % 7)::INTEGER AS k, 's' || (range % 300) AS s FROM range(100000)");
  await conn.run("COPY native TO 'smoke.vtx' (FORMAT vortex)");
  const read = async (sql) => JSON.stringify((await conn.runAndReadAll(sql)).getRowsJS(), (_, v) => (typeof v === 'bigint' ? String(v) : v));
  const result = { arch: process.arch, duckdb: version(), registered: registration.registered, failed: [] };
  for (const [name, q] of Object.entries(QUERIES)) {
    if (name === 'verified') await conn.run('PRAGMA enable_verification');
    const got = await read(q.replace('{t}', "'smoke.vtx'"));
    const want = await read(q.replace('{t}', 'native'));
    if (got !== want) result.failed.push(`${name}: ${got.slice(0, 200)} != ${want.slice(0, 200)}`);
  }
  await conn.run('PRAGMA disable_verification');
  // The aggregates are answered by the reader, as EXPLAIN shows.
  const plan = async (q) => (await conn.runAndReadAll(`EXPLAIN ${q.replace('{t}', "'smoke.vtx'")}`)).getRowsJS().map((r) => r[1]).join('\n');
  const answered = (p) => /Pushed Aggregates/.test(p) && !/HASH_GROUP_BY|UNGROUPED_AGGREGATE|PERFECT_HASH/.test(p);
  result.pushed = {};
  for (const name of ['pushed', 'grouped', 'distinct']) result.pushed[name] = answered(await plan(QUERIES[name]));
  result.loaded = (process.moduleLoadList ?? []).concat(Object.keys(require.cache)).filter((m) => m.endsWith('duckdb_vortex.node'));
  console.log(JSON.stringify(result));
})().catch((e) => {
  console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }));
  process.exit(1);
});
