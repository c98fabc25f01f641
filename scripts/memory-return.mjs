#!/usr/bin/env node
// Does memory come back after a large COPY and scan? In this (fresh) process: RSS before, a COPY
// of N rows of mixed columns to .vtx, a full scan that decodes every column (not pushed), run
// --scans times (from the second, decompressed segments are kept: segment_cache.hpp), then
// RSS after a short settle. The figure that matters is after - before (docs/RELIABILITY.md:
// within 64 MiB).
//
//   node scripts/memory-return.mjs [--rows N] [--row-group-size R] [--scans K] [--threads T] [--dir DIR] [--keep] [--json]
//
// Defaults: 50M rows, the writer's default zones (122,880 rows), DuckDB's default threads, the OS temp directory (the file is removed unless
// --keep). Uses the built package (dist/ and the addon). Not part of `npm test` at this size;
// test/memory.test.ts runs it with 8M rows in zones of 1M rows.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { DuckDBInstance } = require('@duckdb/node-api');
const { registerVortex } = require(join(root, 'dist', 'index.js'));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const rows = Number(opt('rows', 50_000_000));
const threads = opt('threads', null);
const rowGroupSize = opt('row-group-size', null);
const scans = Number(opt('scans', 1));
if (!(Number.isInteger(scans) && scans >= 1)) throw new Error(`--scans: a whole number of scans, at least 1 (got ${opt('scans')})`);
const copyOptions = `FORMAT vortex${rowGroupSize ? `, ROW_GROUP_SIZE ${Number(rowGroupSize)}` : ''}`;
const json = args.includes('--json');
const keep = args.includes('--keep');
const base = opt('dir', null);
const dir = mkdtempSync(join(base ?? tmpdir(), 'vtx-memory-return-'));
const file = join(dir, 'mixed.vtx');

const MiB = 2 ** 20;
const rss = () => process.memoryUsage.rss() / MiB;
const log = (s) => {
  if (!json) console.log(s);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function settled() {
  // RSS once it stops falling (up to 5 s): DuckDB's allocator (jemalloc) returns freed pages
  // after a decay delay, not at once.
  // First past the second for which this package keeps freed buffers after the last operation
  // (DelayedTrim, native/format/scratch.cpp).
  globalThis.gc?.();
  await sleep(1200);
  let last = rss();
  for (let waited = 0; waited < 5000; waited += 500) {
    await sleep(500);
    const now = rss();
    if (last - now < 1) return Math.min(now, last);
    last = now;
  }
  return last;
}

// Mixed columns: integers of several widths with and without NULLs, doubles, dictionary-friendly
// and unique strings, booleans, dates, decimals.
const source = (n) => `SELECT i AS id, (i % 1000)::INTEGER AS small, CASE WHEN i % 10 = 0 THEN NULL ELSE i * 3 END AS nullable,
  (i * 0.25)::DOUBLE AS d, md5(i::VARCHAR) AS s, 'category-' || (i % 50)::VARCHAR AS cat, i % 7 = 0 AS flag,
  DATE '2020-01-01' + (i % 3650)::INTEGER AS day, (i % 100000)::DECIMAL(12, 2) AS price FROM range(${n}) r(i)`;
const scan = `SELECT count(*), sum(id + 1), sum(small), count(nullable), sum(d), max(length(s)), count(DISTINCT cat),
  count(*) FILTER (flag), max(day + 1), sum(price) FROM vortex_scan('${file}')`;

try {
  const config = threads ? { threads: String(threads) } : {};
  const conn = await (await DuckDBInstance.create(':memory:', config)).connect();
  await registerVortex(conn);
  // Warm-up, so one-time costs (DuckDB's threads, code pages, first allocations) are in "before".
  const warm = join(dir, 'warm.vtx');
  await conn.run(`COPY (${source(10_000)}) TO '${warm}' (FORMAT vortex)`);
  await conn.runAndReadAll(scan.replace(file, warm));
  rmSync(warm);
  const before = await settled();
  log(`before: ${before.toFixed(1)} MiB RSS`);

  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
  const t0 = performance.now();
  await conn.run(`COPY (${source(rows)}) TO '${file}' (${copyOptions})`);
  const copySeconds = (performance.now() - t0) / 1000;
  const afterCopy = rss();
  const t1 = performance.now();
  let result = [];
  for (let i = 0; i < scans; i++) result = (await conn.runAndReadAll(scan)).getRowsJS()[0];
  const scanSeconds = (performance.now() - t1) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rss(), process.resourceUsage().maxRSS / 1024);
  const after = await settled();
  // After the settle: freed decode blocks are kept for the next query until nothing has run for
  // a moment (native/format/buffer_memory.hpp), so right after the scan the C heap still holds them.
  let buffers = [null];
  try {
    buffers = (await conn.runAndReadAll('SELECT * FROM vortex_buffer_info()')).getRowsJS()[0];
  } catch {
    // an older build without vortex_buffer_info
  }
  const out = {
    rows,
    rowGroupSize: rowGroupSize ? Number(rowGroupSize) : 122880,
    scans,
    fileMiB: Math.round(statSync(file).size / MiB),
    beforeMiB: Math.round(before),
    afterCopyMiB: Math.round(afterCopy),
    peakMiB: Math.round(peak),
    afterMiB: Math.round(after),
    returnedWithinMiB: Math.round(after - before),
    idleThreadBufferBytes: buffers[0] === null ? null : Number(buffers[0]),
    cHeapInUseMiB: buffers[2] == null ? null : Math.round(Number(buffers[2]) / MiB),
    cHeapFreeMiB: buffers[3] == null ? null : Math.round(Number(buffers[3]) / MiB),
    cachedBufferBytes: buffers[4] == null ? null : Number(buffers[4]),
    cachedSegmentBytes: buffers[5] == null ? null : Number(buffers[5]),
    copySeconds: Number(copySeconds.toFixed(1)),
    scanSeconds: Number(scanSeconds.toFixed(1)),
    count: String(result[0]),
  };
  if (json) {
    console.log(JSON.stringify(out));
  } else {
    console.log(`COPY ${rows} rows (${out.fileMiB} MiB file) in ${out.copySeconds} s, RSS ${out.afterCopyMiB} MiB after it`);
    console.log(`${scans === 1 ? 'scan' : `${scans} scans`} in ${out.scanSeconds} s; peak RSS ${out.peakMiB} MiB`);
    console.log(`after: ${out.afterMiB} MiB RSS — ${out.returnedWithinMiB} MiB above before (limit 64)`);
  }
  if (BigInt(result[0]) !== BigInt(rows)) throw new Error(`scan counted ${result[0]} rows, expected ${rows}`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
