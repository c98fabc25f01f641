#!/usr/bin/env node
// Smoke test of the prebuilt binaries as a service installs them: packs this package (dist/ built
// first, prebuilds/ as they are), then for every supported DuckDB release (scripts/duckdb-lines.json)
// with a binary in prebuilds/<platform>-<arch>/, installs the tarball next to that release's
// @duckdb/node-api in a fresh project with every compiler made to fail, and runs
// scripts/smoke-check.cjs there: registration, a COPY/scan round trip, a pushed, a grouped and a
// distinct aggregate and a query under PRAGMA enable_verification, each against DuckDB's own answer.
//   node scripts/smoke-lines.mjs [--only X.Y.Z,...] [--tarball <packed .tgz>] [--report <file.json>] [--keep]
// Results go to prebuilds/manifest.json (scripts/prebuild.mjs writes what it built there) and, with
// --report, to a file shaped like vitest's JSON report (one test per release), which .ci/run counts.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { LINES, root } from './duckdb-headers.mjs';

const support = createRequire(import.meta.url)('./support.cjs');
const { values } = parseArgs({ options: { only: { type: 'string' }, tarball: { type: 'string' }, report: { type: 'string' }, keep: { type: 'boolean' }, jobs: { type: 'string', default: '2' } } });
const platform = `${process.platform}-${process.arch}`;
const log = (m) => process.stderr.write(`[smoke-lines] ${m}\n`);
const run = promisify(execFile);
const only = values.only ? values.only.split(',') : null;
const binary = (l) => join(root, 'prebuilds', platform, `duckdb-${l.duckdb}`, 'duckdb_vortex.node');
const lines = LINES.filter((l) => (!only || only.includes(l.duckdb)) && support.nodeApiOf(l, platform) && existsSync(binary(l)));
if (!lines.length) {
  log(`no prebuilt binary in prebuilds/${platform}/ for ${only ? only.join(', ') : 'any supported release'}: run npm run prebuild first`);
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'vtx-smoke-'));
const noCompilers = join(work, 'no-compilers');
mkdirSync(noCompilers);
for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'cmake']) {
  writeFileSync(join(noCompilers, tool), `#!/bin/sh\necho "compiler ${tool} must not run" >&2\nexit 1\n`);
  chmodSync(join(noCompilers, tool), 0o755);
}
const env = {
  ...process.env, PATH: `${noCompilers}:${process.env.PATH}`, npm_config_node_gyp: '/bin/false', CXX: '/bin/false', CC: '/bin/false',
  npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
};
for (const v of ['DUCKDB_VORTEX_HEADERS', 'DUCKDB_VORTEX_NODE_API', 'DUCKDB_VORTEX_SOURCE_URL', 'VORTEX_ADDON_PATH', 'VORTEX_NODE_API_DIR', 'INIT_CWD']) delete env[v];

async function smoke(l, tarball) {
  const nodeApi = support.nodeApiOf(l, platform);
  const app = join(work, `app-${l.duckdb}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: `smoke-${l.duckdb.replace(/\./g, '-')}`, private: true }));
  const started = Date.now();
  try {
    await run('npm', ['install', '--save-exact', tarball, `@duckdb/node-api@${nodeApi}`], { cwd: app, env, maxBuffer: 64 << 20 });
    const installed = Date.now();
    copyFileSync(join(root, 'scripts', 'smoke-check.cjs'), join(app, 'smoke-check.cjs'));
    const { stdout } = await run(process.execPath, ['smoke-check.cjs'], { cwd: app, env, maxBuffer: 64 << 20 });
    const r = JSON.parse(stdout.trim().split('\n').pop());
    const problems = [...(r.failed ?? [])];
    if (r.duckdb !== `v${l.duckdb}`) problems.push(`DuckDB ${r.duckdb}`);
    if (!r.registered) problems.push('not registered');
    for (const [k, v] of Object.entries(r.pushed ?? {})) if (!v) problems.push(`${k} not pushed`);
    if (!r.loaded?.some((p) => p.includes(`prebuilds/${platform}/duckdb-${l.duckdb}/`))) problems.push(`loaded ${r.loaded}`);
    return { duckdb: l.duckdb, nodeApi, ok: !problems.length, problems, installSeconds: Math.round((installed - started) / 1000), seconds: Math.round((Date.now() - started) / 1000) };
  } catch (e) {
    const x = /** @type {{ stdout?: string, stderr?: string, message: string }} */ (e);
    return { duckdb: l.duckdb, nodeApi, ok: false, problems: [`${x.message.split('\n')[0]} ${String(x.stdout ?? '').slice(-500)} ${String(x.stderr ?? '').slice(-1500)}`], seconds: Math.round((Date.now() - started) / 1000) };
  }
}

let failed = 0;
try {
  let tarball = values.tarball;
  if (!tarball) {
    execFileSync('npm', ['run', 'build:ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    tarball = join(work, packed[0].filename);
    log(`packed ${packed[0].filename}: ${(packed[0].size / 1e6).toFixed(1)} MB, ${packed[0].files.filter((f) => f.path.endsWith('.node')).length} binaries`);
  }
  const results = [];
  const queue = [...lines];
  await Promise.all(Array.from({ length: Number(values.jobs) }, async () => {
    for (let l = queue.shift(); l; l = queue.shift()) {
      const r = await smoke(l, tarball);
      log(`${r.ok ? 'ok' : 'FAILED'}: DuckDB ${r.duckdb} next to @duckdb/node-api ${r.nodeApi} (${r.seconds} s)${r.ok ? '' : `: ${r.problems.join('; ')}`}`);
      results.push(r);
    }
  }));
  failed = results.filter((r) => !r.ok).length;
  const manifestFile = join(root, 'prebuilds', 'manifest.json');
  const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {};
  for (const r of results) {
    const entry = (manifest[platform] ??= {})[r.duckdb] ??= {};
    entry.smoke = { ok: r.ok, nodeApi: r.nodeApi, at: new Date().toISOString(), ...(r.ok ? {} : { problems: r.problems }) };
  }
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
  log(`${results.length - failed} of ${results.length} releases passed on ${platform}`);
  if (values.report) {
    writeFileSync(values.report, JSON.stringify({
      numPassedTests: results.length - failed, numFailedTests: failed,
      testResults: [{
        name: 'scripts/smoke-lines.mjs', status: failed ? 'failed' : 'passed',
        assertionResults: results.map((r) => ({
          title: `DuckDB ${r.duckdb} next to @duckdb/node-api ${r.nodeApi}`, fullName: `smoke: DuckDB ${r.duckdb}`,
          status: r.ok ? 'passed' : 'failed', failureMessages: r.problems,
        })),
      }],
    }, null, 2));
  }
} finally {
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
