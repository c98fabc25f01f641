#!/usr/bin/env node
// `npm run add-duckdb-release -- <version> --source <tarball|checkout>`: adds a DuckDB release to
// scripts/duckdb-lines.json, the one list of supported releases, then builds and tests it:
//   1. the sha256 of the source's header tree (duckdb-headers.mjs treeDigest), which the entry pins;
//   2. the @duckdb/node-api to pin: the newest revision of <version> on the registry whose
//      @duckdb/node-bindings-linux-x64 was published (or --node-api), and for linux-arm64 the
//      newest revision that published arm64 bindings (none: no arm64 prebuild for the release);
//   3. the entry, in version order (an existing entry of <version> is replaced), and the README's
//      table of releases rendered from the list (scripts/readme-versions.mjs);
//   4. the prebuilt binary (scripts/prebuild.mjs --only <version>, headers from --source), its smoke
//      test from a packed tarball (scripts/smoke-lines.mjs) and the verification subset
//      (scripts/test-verification.mjs --line <version>).
// Options: --commit <sha> (named in the pin's description; read from a git checkout by itself),
// --node-api <version>, --no-build (steps 1-3 only), --no-test (skip step 4's tests).
// Nothing else names a release: if DuckDB's C++ API moved, the build fails in step 4 and the
// difference goes into native/duckdb/duckdb_compat.hpp.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { root, sourceDigest } from './duckdb-headers.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    source: { type: 'string' }, commit: { type: 'string' }, 'node-api': { type: 'string' },
    'no-build': { type: 'boolean' }, 'no-test': { type: 'boolean' },
  },
});
const log = (m) => process.stderr.write(`[add-duckdb-release] ${m}\n`);
const LINES_FILE = join(root, 'scripts', 'duckdb-lines.json');
/** The platforms prebuilt and their bindings package on the registry. */
const PLATFORMS = ['linux-x64', 'linux-arm64'];

function fail(m) {
  log(m);
  process.exit(1);
}

const npmJson = (args) => {
  try {
    return JSON.parse(execFileSync('npm', ['view', ...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }) || 'null');
  } catch {
    return null;
  }
};
const asList = (v) => (v == null ? [] : Array.isArray(v) ? v : [v]);
const revisionOf = (v) => Number(/-r\.(\d+)$/.exec(v)?.[1] ?? 0);

/** The @duckdb/node-bindings version a node-api depends on (equal so far, but not assumed). */
function bindingsOf(nodeApi) {
  const deps = npmJson([`@duckdb/node-api@${nodeApi}`, 'dependencies']);
  return deps?.['@duckdb/node-bindings'] ?? null;
}

/** The node-api revisions of `duckdb` whose bindings were published for each platform, newest first. */
function revisions(duckdb, forced) {
  const all = forced ? [forced] : asList(npmJson(['@duckdb/node-api', 'versions'])).filter((v) => v === duckdb || v.startsWith(`${duckdb}-`));
  all.sort((a, b) => revisionOf(b) - revisionOf(a));
  const published = Object.fromEntries(PLATFORMS.map((p) => [p, new Set(asList(npmJson([`@duckdb/node-bindings-${p}`, 'versions'])))]));
  const out = Object.fromEntries(PLATFORMS.map((p) => [p, null]));
  for (const nodeApi of all) {
    const bindings = bindingsOf(nodeApi);
    for (const p of PLATFORMS) if (!out[p] && bindings && published[p].has(bindings)) out[p] = nodeApi;
  }
  return { all, newest: out };
}

const compare = (a, b) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

function run(script, args, env = {}) {
  log(`node ${script} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [join(root, 'scripts', script), ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) fail(`${script} failed (exit ${r.status})`);
}

const [duckdb] = positionals;
if (!duckdb || !/^\d+\.\d+\.\d+$/.test(duckdb) || !values.source) {
  fail('usage: npm run add-duckdb-release -- <version, X.Y.Z> --source <DuckDB source archive (.tar.gz) or checkout at tag v<version>> [--commit <sha>] [--node-api <version>] [--no-build] [--no-test]');
}
const source = resolve(values.source);
if (!existsSync(source)) fail(`--source ${source} does not exist`);

const digest = await sourceDigest(source).catch((e) => fail(e.message));
let commit = values.commit;
if (!commit && statSync(source).isDirectory()) {
  try {
    commit = execFileSync('git', ['-C', source, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a git checkout: the description names the tag only
  }
}
log(`DuckDB ${duckdb} headers: sha256 ${digest}${commit ? ` (commit ${commit})` : ''}`);

const { all, newest } = revisions(duckdb, values['node-api']);
if (!all.length) fail(`the registry has no @duckdb/node-api for DuckDB ${duckdb}`);
const nodeApi = newest['linux-x64'];
if (!nodeApi) fail(`no @duckdb/node-api of DuckDB ${duckdb} (${all.join(', ')}) published @duckdb/node-bindings-linux-x64`);
const platforms = {};
for (const p of PLATFORMS) if (p !== 'linux-x64') platforms[p] = newest[p] ? { nodeApi: newest[p] } : null;
log(`@duckdb/node-api ${nodeApi}; ${PLATFORMS.filter((p) => p !== 'linux-x64').map((p) => `${p}: ${newest[p] ?? 'no bindings published'}`).join(', ')}`);

const file = JSON.parse(readFileSync(LINES_FILE, 'utf8'));
const entry = {
  duckdb,
  nodeApi,
  platforms,
  headers: {
    url: `https://github.com/duckdb/duckdb/archive/refs/tags/v${duckdb}.tar.gz`,
    sha256: { [digest]: `DuckDB's source at tag v${duckdb}${commit ? ` (commit ${commit})` : ''}` },
  },
};
const previous = file.lines.find((l) => l.duckdb === duckdb);
if (previous?.headers?.npm) entry.headers = { npm: previous.headers.npm, ...entry.headers, sha256: { ...previous.headers.sha256, ...entry.headers.sha256 } };
file.lines = [...file.lines.filter((l) => l.duckdb !== duckdb), entry].sort((a, b) => compare(a.duckdb, b.duckdb));
writeFileSync(LINES_FILE, JSON.stringify(file, null, 2) + '\n');
log(`${previous ? 'replaced' : 'added'} DuckDB ${duckdb} in scripts/duckdb-lines.json (${file.lines.length} releases)`);
// The README's table of releases is generated from the list.
run('readme-versions.mjs', []);

if (!values['no-build']) {
  // The binary a package ships (node-gyp, prebuilds/), with the headers from --source.
  run('prebuild.mjs', ['--only', duckdb, '--no-smoke'], { DUCKDB_VORTEX_HEADERS: source });
  if (!values['no-test']) {
    run('smoke-lines.mjs', ['--only', duckdb]);
    run('test-verification.mjs', ['--line', duckdb], { VORTEX_SKIP_BUILD: '1' });
  }
  log(`DuckDB ${duckdb} added, built and tested. Commit scripts/duckdb-lines.json (and native/duckdb/duckdb_compat.hpp if the build needed it).`);
}
