#!/usr/bin/env node
// Writes the fuzzer's seed corpus: small, real .vtx files covering every column type, every
// value encoding (constant, plain, frame-of-reference, run-length, dictionary, ALP), NULL bitmaps,
// all-NULL chunks, long (inexact-statistics) strings, several zones, and each block codec.
//   node fuzz/make-seeds.mjs <dir>
// Uses the built package (dist/, build/): run `npm run build` first.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');
const { registerVortex } = require(join(root, 'dist', 'index.js'));

const out = resolve(process.argv[2] ?? join(root, 'fuzz', 'corpus-run'));
mkdirSync(out, { recursive: true });

const q = (s) => `'${s.replace(/'/g, "''")}'`;

// name -> [SELECT producing the rows, ROW_GROUP_SIZE, more COPY options]
const SEEDS = {
  ints: [`SELECT i::TINYINT a, (i * 300)::SMALLINT b, (i * 70000)::INTEGER c, i * 5000000000 d, i::HUGEINT e,
            i::UTINYINT f, i::USMALLINT g, i::UINTEGER h, i::UBIGINT u, i::UHUGEINT v, i % 2 = 0 w FROM range(40) t(i)`, 16],
  nulls: [`SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i END a, CASE WHEN i % 5 = 1 THEN NULL ELSE 'v' || i END s,
             NULL::INTEGER n, NULL::VARCHAR ns FROM range(30) t(i)`, 10],
  floats: [`SELECT (i * 0.5)::FLOAT f, CASE i % 7 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE
              WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN -0.0 ELSE i / 3 END d FROM range(30) t(i)`, 12],
  rle: [`SELECT (i // 10)::BIGINT r, 7 k, (i // 8)::INTEGER q FROM range(80) t(i)`, 40],
  dict: [`SELECT (i % 4) * 1000000007 d, ['alpha','beta','gamma'][i % 3 + 1] s FROM range(200) t(i)`, 100],
  strings: [`SELECT md5(i::VARCHAR) s, repeat('x', 70 + i) long_s, ('\\x' || lpad(to_hex(i), 2, '0'))::BLOB b,
               '' e FROM range(12) t(i)`, 5],
  temporal: [`SELECT DATE '2020-01-01' + i::INTEGER d, TIME '01:00:00' + INTERVAL (i) SECOND t,
                TIMESTAMP '2020-01-01' + INTERVAL (i) HOUR ts, (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_S tss,
                (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_MS tms, (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_NS tns,
                (TIMESTAMP '2020-01-01' + INTERVAL (i) HOUR)::TIMESTAMPTZ tz, '12:00:00+01'::TIMETZ ttz,
                INTERVAL (i) DAY iv, md5(i::VARCHAR)::UUID id,
                printf('%02d:00:00.%09d', i, i * 7919)::TIME_NS tn FROM range(20) t(i)`, 8],
  nested: [`SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE {'a': i, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END} END s,
              CASE WHEN i % 4 = 0 THEN NULL ELSE range(i % 3) END l, [i, NULL]::INTEGER[2] arr, map([i % 2], ['m' || i]) m,
              (['x', 'y', NULL])[i % 3 + 1]::ENUM('x', 'y') e, union_value(k := i::INTEGER)::UNION(k INTEGER, v VARCHAR) u,
              [{'p': [i]}] deep, row(i, [row(i % 2, 'r')]) unnamed FROM range(30) t(i)`, 10],
  decimals: [`SELECT (i / 10)::DECIMAL(4,1) a, (i * 1.25)::DECIMAL(9,2) b, (i * 1.125)::DECIMAL(18,3) c,
                (i * 1.0625)::DECIMAL(38,4) d FROM range(25) t(i)`, 10],
  empty: [`SELECT 1::INTEGER x WHERE false`, 10],
  // ALP (format version 2): decimals with exceptions (NaN, ±inf, -0.0, too many digits), both widths.
  alp: [`SELECT CASE i % 9 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN -0.0 WHEN 3 THEN pi()
            ELSE ((i * 7919) % 100000) / 100 END d, CASE i % 11 WHEN 0 THEN '-inf'::FLOAT WHEN 1 THEN 1e-40::FLOAT
            ELSE ((i * 31) % 5000 / 10)::FLOAT END f FROM range(64) t(i)`, 32],
  wide: [`SELECT (hash(i) >> 2)::BIGINT r, hash(i) % 2 = 0 b FROM range(100) t(i)`, 100],
  compressible: [`SELECT i * 7919 % 1000 x, repeat(chr(65 + (i % 3)::INTEGER), 30) s FROM range(600) t(i)`, 300],
  // Key-value pairs at the end of the footer (format version 5).
  keyvalue: [`SELECT i::INTEGER x FROM range(20) t(i)`, 10, `, KV_METADATA {a: 1, 'b c': 'text', d: '\\x00\\xff'::BLOB, e: ''}`],
};

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await registerVortex(conn);
let n = 0;
for (const [name, [sql, zoneRows, extra = '']] of Object.entries(SEEDS)) {
  for (const codec of ['none', 'zstd', 'lz4']) {
    if (codec !== 'none' && !['compressible', 'strings', 'dict', 'ints'].includes(name)) continue;
    const file = join(out, `seed-${name}-${codec}.vtx`);
    await conn.run(`COPY (${sql}) TO ${q(file)} (FORMAT vortex, ROW_GROUP_SIZE ${zoneRows}, COMPRESSION ${codec}${extra})`);
    n++;
  }
}
const bytes = readdirSync(out).filter((f) => f.startsWith('seed-')).reduce((s, f) => s + statSync(join(out, f)).size, 0);
console.log(`wrote ${n} seed files (${bytes} bytes) to ${out}`);
