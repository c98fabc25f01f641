#!/usr/bin/env node
// .vtx vs Parquet (DuckDB's defaults) on the same data, side by side in one process:
// file size, COPY time, a full scan reading every value, and a selective filtered query; then
// the same for a table of nested columns (STRUCT, LIST, MAP, ARRAY; format version 3).
//   node bench/format.mjs [--rows=50000000] [--runs=3] [--nested-only] [--copy-runs=3]
// COPY times are medians of --copy-runs, the formats in alternating order (common.mjs, timeCopies).
import { connect, dataDir, dataSql, fileSize, fmtBytes, fmtMs, machine, parseArgs, q, table, time, timeCopies } from './common.mjs';

const args = parseArgs({ rows: 50_000_000, runs: 3, nestedOnly: false, copyRuns: 3 });
const dir = dataDir(`format-${args.rows}`);
const { conn } = await connect();
console.log(`# format benchmark: ${args.rows.toLocaleString()} rows; ${machine()}`);

if (!args.nestedOnly) {
  await conn.run(`CREATE TABLE data AS ${dataSql(args.rows)}`);
  const vtx = `${dir}/data.vtx`;
  const parquet = `${dir}/data.parquet`;
  const { vortex: copyVtx, parquet: copyParquet } = await timeCopies(conn, {
    vortex: [`COPY data TO ${q(vtx)} (FORMAT vortex)`, vtx],
    parquet: [`COPY data TO ${q(parquet)} (FORMAT parquet)`, parquet],
  }, args.copyRuns);

  const full = (from) => `SELECT sum(hash(id, run_int, small_int, amount, category, token, ts)) FROM ${from}`;
  const selective = (from) => `SELECT count(*), sum(amount), max(token) FROM ${from} WHERE id BETWEEN ${Math.floor(args.rows / 2)} AND ${Math.floor(args.rows / 2) + 100_000}`;
  const scanV = `vortex_scan(${q(vtx)})`;
  const scanP = `read_parquet(${q(parquet)})`;

  const fullV = await time(conn, full(scanV), { runs: args.runs });
  const fullP = await time(conn, full(scanP), { runs: args.runs });
  if (JSON.stringify(fullV.rows, (_, v) => String(v)) !== JSON.stringify(fullP.rows, (_, v) => String(v))) throw new Error('full scans disagree');
  const selV = await time(conn, selective(scanV), { runs: args.runs });
  const selP = await time(conn, selective(scanP), { runs: args.runs });

  const sv = fileSize(vtx), sp = fileSize(parquet);
  console.log(table([
    ['measure', '.vtx', 'parquet', 'parquet / vtx'],
    ['file size', fmtBytes(sv), fmtBytes(sp), (sp / sv).toFixed(2)],
    ['COPY TO', fmtMs(copyVtx), fmtMs(copyParquet), (copyParquet / copyVtx).toFixed(2)],
    ['full scan', fmtMs(fullV.ms), fmtMs(fullP.ms), (fullP.ms / fullV.ms).toFixed(2)],
    ['selective filter', fmtMs(selV.ms), fmtMs(selP.ms), (selP.ms / selV.ms).toFixed(2)],
  ]));
  console.log('(ratios above 1.00 favour .vtx)');
}

// Nested: JSON-shaped events. A struct with a nested struct and a string, a list of integers
// (empty and NULL lists included), a map, and a fixed-size array.
await conn.run(`CREATE OR REPLACE TABLE nested AS SELECT i AS id,
    CASE WHEN i % 50 = 0 THEN NULL ELSE {'user': 'u' || (hash(i) % 5000)::VARCHAR, 'score': (hash(i, 1) % 1000)::INTEGER,
      'geo': {'lat': (hash(i, 2) % 180000)::DOUBLE / 1000 - 90, 'lon': (hash(i, 3) % 360000)::DOUBLE / 1000 - 180}} END AS event,
    CASE WHEN i % 17 = 0 THEN NULL ELSE list_transform(range((hash(i, 4) % 4)::BIGINT), j -> (i + j)::INTEGER) END AS ids,
    map(['k' || (i % 3)::VARCHAR], [i % 100]) AS attrs,
    [i % 7, i % 11, i % 13]::SMALLINT[3] AS vec
  FROM range(${args.rows}) r(i)`);
const nvtx = `${dir}/nested.vtx`, nparquet = `${dir}/nested.parquet`;
const { vortex: ncopyV, parquet: ncopyP } = await timeCopies(conn, {
  vortex: [`COPY nested TO ${q(nvtx)} (FORMAT vortex)`, nvtx],
  parquet: [`COPY nested TO ${q(nparquet)} (FORMAT parquet)`, nparquet],
}, args.copyRuns);
const nfull = (from) => `SELECT sum(hash(id, event, ids, attrs, vec)) FROM ${from}`;
// Pushed on .vtx (answered from the fields' statistics), and a projection of one nested field
// (float max: never pushed; only the field's stream is decoded).
const nfield = (from) => `SELECT sum(event.score), count(event.user), max(event.score), count(event.geo) FROM ${from}`;
const nproject = (from) => `SELECT max(event.geo.lat), min(event.geo.lon) FROM ${from}`;
const nV = `vortex_scan(${q(nvtx)})`, nP = `read_parquet(${q(nparquet)})`;
const nfullV = await time(conn, nfull(nV), { runs: args.runs });
const nfullP = await time(conn, nfull(nP), { runs: args.runs });
if (JSON.stringify(nfullV.rows, (_, v) => String(v)) !== JSON.stringify(nfullP.rows, (_, v) => String(v))) throw new Error('nested full scans disagree');
const nfieldV = await time(conn, nfield(nV), { runs: args.runs });
const nfieldP = await time(conn, nfield(nP), { runs: args.runs });
const nprojV = await time(conn, nproject(nV), { runs: args.runs });
const nprojP = await time(conn, nproject(nP), { runs: args.runs });
const nsv = fileSize(nvtx), nsp = fileSize(nparquet);
console.log(table([
  ['nested measure', '.vtx', 'parquet', 'parquet / vtx'],
  ['file size', fmtBytes(nsv), fmtBytes(nsp), (nsp / nsv).toFixed(2)],
  ['COPY TO', fmtMs(ncopyV), fmtMs(ncopyP), (ncopyP / ncopyV).toFixed(2)],
  ['full scan', fmtMs(nfullV.ms), fmtMs(nfullP.ms), (nfullP.ms / nfullV.ms).toFixed(2)],
  ['struct field aggregates (pushed on .vtx)', fmtMs(nfieldV.ms), fmtMs(nfieldP.ms), (nfieldP.ms / nfieldV.ms).toFixed(2)],
  ['struct field projection (not pushed)', fmtMs(nprojV.ms), fmtMs(nprojP.ms), (nprojP.ms / nprojV.ms).toFixed(2)],
]));
console.log('(ratios above 1.00 favour .vtx)');
