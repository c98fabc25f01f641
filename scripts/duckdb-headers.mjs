#!/usr/bin/env node
// Which DuckDB the addon is built for, and that DuckDB's C++ headers and libduckdb.
//
// The addon uses DuckDB's C++ API, which has no ABI stability: it is compiled against the exact
// release it runs in. scripts/duckdb-lines.json lists the releases this package supports.
//
// Target: the @duckdb/node-api installed next to the package, or DUCKDB_VORTEX_NODE_API=<version>
// (e.g. 1.5.5-r.5; that node-api is then installed into the git-ignored .cache/ to link against).
//
// Headers, verified before use and extracted into the git-ignored .cache/:
//   - 1.4.x: the `duckdb` npm package of that version, which ships DuckDB's source
//     (`npm pack`, never `npm install`; sha512 pinned);
//   - other releases (1.5.x), from DUCKDB_VORTEX_HEADERS when set: a checkout of DuckDB's source at the matching tag
//     (its src/include and third_party are used as they are), or a tarball of those two folders
//     (verified against the sha256 pinned in duckdb-lines.json, or DUCKDB_VORTEX_HEADERS_SHA256),
//     or a directory holding such a tarball;
//   - otherwise from ../shared/duckdb-headers/ beside the checkout (no registry package carries them).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LINES = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')).lines;
const log = (m) => process.stderr.write(`[duckdb-headers] ${m}\n`);

/** "1.5.5-r.5", "v1.5.5" -> "1.5.5" */
export function duckdbOf(version) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`duckdb-vortex: cannot read a DuckDB version from "${version}"`);
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/** 1.5.5 -> 10505 (for the compatibility header's #if). */
export function versionNumber(duckdb) {
  const [a, b, c] = duckdb.split('.').map(Number);
  return a * 10000 + b * 100 + c;
}

function installedNodeApi(from = root) {
  try {
    const req = createRequire(join(from, 'package.json'));
    return JSON.parse(readFileSync(req.resolve('@duckdb/node-api/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

const supportedText = () => LINES.map((l) => `@duckdb/node-api ${l.nodeApi} (DuckDB ${l.duckdb})`).join(', ');

/** The DuckDB this build is for: { nodeApi, duckdb, line }. */
export function buildTarget(nodeApi = process.env.DUCKDB_VORTEX_NODE_API || installedNodeApi()) {
  if (!nodeApi) {
    throw new Error(`duckdb-vortex: @duckdb/node-api is not installed, so there is no DuckDB to build for. ` +
      `Install one of ${supportedText()}, or set DUCKDB_VORTEX_NODE_API to a @duckdb/node-api version.`);
  }
  const duckdb = duckdbOf(nodeApi);
  return { nodeApi, duckdb, line: LINES.find((l) => l.duckdb === duckdb) };
}

/**
 * A directory from which `@duckdb/node-api@nodeApi` resolves: the package itself when that is
 * the installed version, otherwise a private install in .cache/ (only to link against).
 */
export function ensureNodeApi(nodeApi) {
  if (installedNodeApi() === nodeApi) return root;
  const dir = join(root, '.cache', `node-api-${nodeApi}`);
  const version = () => {
    try {
      return JSON.parse(readFileSync(join(dir, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  if (version() === nodeApi) return dir;
  log(`npm install @duckdb/node-api@${nodeApi} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `node-api-${nodeApi}`, private: true }) + '\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', `@duckdb/node-api@${nodeApi}`], {
    cwd: dir, stdio: ['ignore', 2, 'inherit'], shell: process.platform === 'win32',
  });
  if (version() !== nodeApi) throw new Error(`duckdb-vortex: could not install @duckdb/node-api@${nodeApi} into ${dir}`);
  return dir;
}

/** The libduckdb shared library shipped by @duckdb/node-bindings next to that node-api. */
export function libduckdbPath(nodeApi) {
  const req = createRequire(join(ensureNodeApi(nodeApi), 'package.json'));
  const api = dirname(req.resolve('@duckdb/node-api/package.json'));
  const bindings = dirname(createRequire(join(api, 'package.json')).resolve('@duckdb/node-bindings/package.json'));
  const platformPkg = `@duckdb/node-bindings-${process.platform}-${process.arch}`;
  const dir = dirname(createRequire(join(bindings, 'package.json')).resolve(`${platformPkg}/package.json`));
  const name = process.platform === 'darwin' ? 'libduckdb.dylib' : process.platform === 'win32' ? 'duckdb.lib' : 'libduckdb.so';
  return join(dir, name);
}

function digest(file, algorithm, encoding) {
  return createHash(algorithm).update(readFileSync(file)).digest(encoding);
}

/** A verified extraction in .cache/duckdb-<v>/{include,third_party}, redone when its marker differs. */
function cached(duckdb, marker, extract) {
  const dir = join(root, '.cache', `duckdb-${duckdb}`);
  const file = join(dir, 'VERIFIED');
  if (existsSync(file) && readFileSync(file, 'utf8').trim() === marker) return dir;
  mkdirSync(join(root, '.cache'), { recursive: true });
  // Staged inside .cache/ so that the final renames never cross file systems.
  const work = mkdtempSync(join(root, '.cache', 'tmp-headers-'));
  try {
    const next = `${dir}.partial`;
    rmSync(next, { recursive: true, force: true });
    mkdirSync(next, { recursive: true });
    const { include, thirdParty } = extract(work);
    renameSync(include, join(next, 'include'));
    renameSync(thirdParty, join(next, 'third_party'));
    writeFileSync(join(next, 'VERIFIED'), marker + '\n');
    rmSync(dir, { recursive: true, force: true });
    renameSync(next, dir);
    log(`DuckDB ${duckdb} headers ready in ${dir}`);
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function fromNpm(duckdb, headers) {
  return cached(duckdb, headers.integrity, (work) => {
    log(`npm pack ${headers.package}`);
    const out = execFileSync('npm', ['pack', headers.package, '--pack-destination', work, '--json', '--ignore-scripts'], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
    });
    const tarball = join(work, JSON.parse(out)[0].filename);
    const actual = 'sha512-' + digest(tarball, 'sha512', 'base64');
    if (actual !== headers.integrity) {
      throw new Error(`${headers.package} tarball failed verification: expected ${headers.integrity}, got ${actual}`);
    }
    log('integrity verified; extracting include directories');
    const staging = join(work, 'extract');
    mkdirSync(staging);
    const subtrees = ['package/src/duckdb/src/include', 'package/src/duckdb/third_party'];
    execFileSync('tar', ['-xzf', tarball, '-C', staging, '--wildcards', '--exclude=*/icu/*',
      ...subtrees.flatMap((s) => ['*.h', '*.hpp'].map((g) => `${s}/${g}`))], { stdio: 'inherit' });
    return { include: join(staging, subtrees[0]), thirdParty: join(staging, subtrees[1]) };
  });
}

function fromTarball(duckdb, tarball, sha256) {
  const actual = digest(tarball, 'sha256', 'hex');
  if (actual !== sha256) {
    throw new Error(`duckdb-vortex: ${tarball} failed verification: expected sha256 ${sha256}, got ${actual}`);
  }
  return cached(duckdb, `sha256:${sha256}`, (work) => {
    log(`sha256 verified; extracting ${tarball}`);
    execFileSync('tar', ['-xzf', tarball, '-C', work], { stdio: 'inherit' });
    const top = readdirSync(work).map((d) => join(work, d)).find((d) => existsSync(join(d, 'src', 'include', 'duckdb.hpp')));
    if (!top) throw new Error(`duckdb-vortex: ${tarball} holds no <top>/src/include/duckdb.hpp`);
    return { include: join(top, 'src', 'include'), thirdParty: join(top, 'third_party') };
  });
}

function missing(duckdb, line, looked) {
  return new Error(
    `duckdb-vortex: DuckDB ${duckdb}'s C++ headers are needed to build the addon, and no registry package carries them` +
      `${looked.length ? ` (looked in ${looked.join(', ')})` : ''}. Get DuckDB's source at the matching tag ` +
      `(git clone --depth 1 --branch v${duckdb} https://github.com/duckdb/duckdb) and set DUCKDB_VORTEX_HEADERS to that ` +
      `checkout (its src/include and third_party are used), or to a tarball of those folders` +
      `${line?.headers.sha256 ? ` (${line.headers.file}, sha256 ${line.headers.sha256})` : ' with DUCKDB_VORTEX_HEADERS_SHA256 set to its sha256'}.`,
  );
}

/** Resolves a user- or repository-supplied headers source (directory or tarball) to a header directory. */
function fromSource(duckdb, line, source) {
  if (!existsSync(source)) return null;
  const pinned = line?.headers.sha256 || process.env.DUCKDB_VORTEX_HEADERS_SHA256;
  const tarball = (file) => {
    if (!pinned) throw missing(duckdb, line, [file + ' (no sha256 pinned for it)']);
    return fromTarball(duckdb, file, pinned);
  };
  if (statSync(source).isFile()) return tarball(source);
  for (const dir of [source, join(source, `duckdb-${duckdb}`)]) {
    if (existsSync(join(dir, 'src', 'include', 'duckdb.hpp'))) return { source: dir };
  }
  const named = join(source, line?.headers.file ?? `duckdb-${duckdb}-headers.tar.gz`);
  if (existsSync(named)) return tarball(named);
  return null;
}

/**
 * Include directories for DuckDB `duckdb` (default: the build target), fetching and verifying
 * the headers first.
 */
export function ensureHeaders(duckdb = buildTarget().duckdb) {
  const line = LINES.find((l) => l.duckdb === duckdb);
  const looked = [];
  let found = null;
  const env = process.env.DUCKDB_VORTEX_HEADERS;
  if (line?.headers.from === 'npm') {
    found = fromNpm(duckdb, line.headers);
  } else if (env) {
    const source = resolve(env);
    looked.push(`DUCKDB_VORTEX_HEADERS=${source}`);
    found = fromSource(duckdb, line, source);
  } else {
    const shared = resolve(root, '..', 'shared', 'duckdb-headers');
    looked.push(shared);
    found = fromSource(duckdb, line, shared);
  }
  if (!found) throw missing(duckdb, line, looked);
  if (typeof found === 'object') {
    return includeDirs(join(found.source, 'src', 'include'), join(found.source, 'third_party'));
  }
  return includeDirs(join(found, 'include'), join(found, 'third_party'));
}

function includeDirs(include, thirdParty) {
  return [include, thirdParty, join(thirdParty, 'zstd', 'include'), join(thirdParty, 'fmt', 'include'),
    join(thirdParty, 'utf8proc', 'include')];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const dirs = ensureHeaders();
    if (process.argv.includes('--print')) process.stdout.write(dirs.join('\n') + '\n');
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
