#!/usr/bin/env node
// Writes a .vtx file larger than 4 GiB and scans it, each in a fresh process, and reports the
// scanning process's peak RSS: memory must stay bounded by what is in flight (a few zones per
// thread), not grow with the file. Also checks the answers against DuckDB computing the same
// values without the file, and times a pushed aggregate over it.
//
//   node scripts/soak-large.mjs [--rows N] [--dir DIR] [--threads T] [--keep]
//
// Defaults: 120M rows of (BIGINT pseudo-random, BIGINT sequential, VARCHAR md5) written uncompressed
// (about 4.6 GiB) in the OS temp directory, removed afterwards unless --keep. Uses the built
// package (dist/ and the addon; VORTEX_ADDON_PATH selects another build).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const rows = Number(opt('rows', 120_000_000));
const threads = Number(opt('threads', 2));
const keep = args.includes('--keep');
const dir = opt('dir', null) ?? mkdtempSync(join(tmpdir(), 'vtx-soak-large-'));
const file = join(dir, 'large.vtx');

// Runs a snippet in a fresh Node process; it prints one JSON line with its results.
function child(label, body) {
  const code = `
    const { DuckDBInstance } = require('@duckdb/node-api');
    const { registerVortex } = require(${JSON.stringify(join(root, 'dist', 'index.js'))});
    (async () => {
      const conn = await (await DuckDBInstance.create(':memory:', { threads: '${threads}' })).connect();
      await registerVortex(conn);
      const rowsOf = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
      const out = {};
      ${body}
      out.peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
      console.log(JSON.stringify(out, (k, v) => typeof v === 'bigint' ? v.toString() : v));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const started = Date.now();
  const r = spawnSync(process.execPath, ['-e', code], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, env: process.env });
  if (r.status !== 0) {
    console.error(`${label} failed (status ${r.status}, signal ${r.signal}):\n${r.stderr}`);
    process.exit(1);
  }
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  result.wallSeconds = (Date.now() - started) / 1000;
  console.log(`${label}: ${JSON.stringify(result)}`);
  return result;
}

const source = `SELECT (hash(i) >> 1)::BIGINT AS h, i AS id, md5(i::VARCHAR) AS s FROM range(${rows}) r(i)`;
const check = (rel) => `SELECT count(*) AS n, sum(h) AS sum_h, sum(id) AS sum_id, sum(hash(s)) AS hash_s, max(length(s)) AS max_len FROM ${rel}`;

try {
  console.log(`soak-large: ${rows} rows into ${file} (threads=${threads})`);
  const write = child('write', `
    const t0 = performance.now();
    await conn.run(\`COPY (${source}) TO '${file}' (FORMAT vortex, COMPRESSION none)\`);
    out.copySeconds = (performance.now() - t0) / 1000;`);
  const bytes = statSync(file).size;
  console.log(`file size: ${bytes} bytes (${(bytes / 2 ** 30).toFixed(2)} GiB)${bytes > 2 ** 32 ? ' > 4 GiB' : ' — NOT above 4 GiB, use more --rows'}`);

  const scan = child('scan', `
    const t0 = performance.now();
    out.result = (await rowsOf(\`${check(`vortex_scan('${file}')`)}\`))[0];
    out.scanSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    out.filtered = (await rowsOf(\`SELECT count(*), sum(h) FROM vortex_scan('${file}') WHERE id >= ${rows - 1_000_000}\`))[0];
    out.filteredSeconds = (performance.now() - t1) / 1000;
    const plan = (await rowsOf(\`EXPLAIN SELECT count(*), sum(id), min(id), max(id) FROM vortex_scan('${file}')\`)).map((r) => r[1]).join('\\n');
    out.pushed = plan.includes('Pushed Aggregates');
    const t2 = performance.now();
    out.pushedResult = (await rowsOf(\`SELECT count(*), sum(id), min(id), max(id) FROM vortex_scan('${file}')\`))[0];
    out.pushedMs = performance.now() - t2;`);

  const expected = child('expected (DuckDB, no file)', `
    out.result = (await rowsOf(\`${check(`(${source})`)}\`))[0];
    out.filtered = (await rowsOf(\`SELECT count(*), sum(h) FROM (${source}) WHERE id >= ${rows - 1_000_000}\`))[0];`);

  const same = JSON.stringify(scan.result) === JSON.stringify(expected.result) &&
    JSON.stringify(scan.filtered) === JSON.stringify(expected.filtered) &&
    scan.pushedResult[0] === String(rows) && scan.pushedResult[1] === String((BigInt(rows) * BigInt(rows - 1)) / 2n);
  console.log(`\nsummary: file ${(bytes / 2 ** 30).toFixed(2)} GiB, ${rows} rows; COPY ${write.copySeconds.toFixed(1)} s (peak RSS ${write.peakRssMiB} MiB); ` +
    `full scan ${scan.scanSeconds.toFixed(1)} s, filtered ${scan.filteredSeconds.toFixed(2)} s, pushed ${scan.pushedMs.toFixed(1)} ms (${scan.pushed ? 'pushed' : 'NOT pushed'}); ` +
    `scanning process peak RSS ${scan.peakRssMiB} MiB; DuckDB without the file peak RSS ${expected.peakRssMiB} MiB; answers ${same ? 'identical' : 'DIFFERENT'}`);
  if (!same || !scan.pushed || bytes <= 2 ** 32) process.exitCode = 1;
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${file}`);
}
