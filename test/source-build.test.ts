import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';
import { DEV, LATEST } from './lines';

interface Pinned { duckdb: string; nodeApi: string; headers: { npm?: { package: string }; sha256: Record<string, string> } }
const pinnedLines: Pinned[] = JSON.parse(readFileSync(join(__dirname, '..', 'scripts', 'duckdb-lines.json'), 'utf8')).lines;
const LATEST_PINNED = { ...LATEST, digest: Object.keys(pinnedLines.find((l) => l.duckdb === LATEST.duckdb)!.headers.sha256)[0] };

// Source builds outside this repository (issue 24): DuckDB's headers come from a source archive
// of the matching tag (DUCKDB_VORTEX_SOURCE_URL, https:// or file://, or the line's default),
// verified against the tree sha256 pinned in scripts/duckdb-lines.json. Everything here runs on
// a copy of the package's scripts in a temporary folder, where no ../shared exists.
const root = join(__dirname, '..');
const run = promisify(execFile);
// The newest release, its headers from the shared tarballs (repacked), its pinned tree digest.
const L = LATEST_PINNED;
const shared = resolve(root, '..', 'shared', 'duckdb-headers', `duckdb-${L.duckdb}-headers.tar.gz`);
const esc = (v: string) => v.replace(/\./g, '\\.');

/** A folder with the package's scripts and package.json (and its node_modules), as installed elsewhere. */
function packageCopy(dir: string): string {
  const pkg = join(dir, 'pkg');
  mkdirSync(join(pkg, 'scripts'), { recursive: true });
  for (const f of ['duckdb-headers.mjs', 'duckdb-lines.json', 'support.cjs']) cpSync(join(root, 'scripts', f), join(pkg, 'scripts', f));
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
  return pkg;
}

/** A .tar.gz of the newest release's headers, repacked under another top folder (so not the shared file's bytes). */
function archiveLatest(dir: string, alter?: (top: string) => void): string {
  const work = join(dir, `x-${Math.random().toString(36).slice(2)}`);
  mkdirSync(work);
  execFileSync('tar', ['-xzf', shared, '-C', work]);
  execFileSync('mv', [join(work, `duckdb-${L.duckdb}`), join(work, `duckdb-v${L.duckdb}-src`)]);
  alter?.(join(work, `duckdb-v${L.duckdb}-src`));
  const out = join(dir, `${Math.random().toString(36).slice(2)}.tar.gz`);
  execFileSync('tar', ['-czf', out, '-C', work, `duckdb-v${L.duckdb}-src`]);
  rmSync(work, { recursive: true, force: true });
  return out;
}

function headers(pkg: string, env: Record<string, string | undefined>, ...args: string[]) {
  const e: Record<string, string | undefined> = { ...process.env, DUCKDB_VORTEX_HEADERS: undefined, DUCKDB_VORTEX_SOURCE_URL: undefined, DUCKDB_VORTEX_HEADERS_SHA256: undefined, ...env };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return spawnSync(process.execPath, [join(pkg, 'scripts', 'duckdb-headers.mjs'), '--print', ...args], { cwd: pkg, encoding: 'utf8', env: e as NodeJS.ProcessEnv });
}

describe.skipIf(!existsSync(shared))('DuckDB headers from a source archive', () => {
  const dir = tempDir('vtx-src-');

  it('takes a file:// archive of the tag, verifies its tree sha256 and caches it; no ../shared needed', () => {
    const pkg = packageCopy(dir);
    expect(existsSync(resolve(pkg, '..', 'shared'))).toBe(false);
    const url = pathToFileURL(archiveLatest(dir)).href;
    const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: url });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`DuckDB ${esc(L.duckdb)} headers verified \\(sha256 ${L.digest}\\)`));
    const dirs = r.stdout.trim().split('\n');
    expect(dirs[0]).toBe(join(pkg, '.cache', `duckdb-${L.duckdb}`, 'src', 'include'));
    expect(existsSync(join(dirs[0], 'duckdb.hpp'))).toBe(true);
    expect(existsSync(join(pkg, '.cache', `duckdb-${L.duckdb}`, 'third_party', 'zstd'))).toBe(true);
    // Only the include directories are kept.
    expect(existsSync(join(pkg, '.cache', `duckdb-${L.duckdb}`, 'third_party', 'jemalloc'))).toBe(false);
    // Cached: a second run downloads nothing (the URL is gone).
    const again = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: 'file:///nonexistent/duckdb.tar.gz' });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/verified/);
  });

  it('replaces {version} in DUCKDB_VORTEX_SOURCE_URL', () => {
    const pkg = packageCopy(join(dir, 'v'));
    const file = archiveLatest(dir);
    const templ = join(dir, 'duckdb-{version}.tar.gz');
    cpSync(file, templ.replace('{version}', L.duckdb));
    const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: `file://${templ}` });
    expect(r.status, r.stderr).toBe(0);
  });

  it('refuses an archive whose headers differ from the tag, naming both checksums, and keeps nothing', () => {
    const pkg = packageCopy(join(dir, 'bad'));
    const altered = archiveLatest(dir, (top) => {
      const f = join(top, 'src', 'include', 'duckdb', 'main', 'connection.hpp');
      writeFileSync(f, readFileSync(f, 'utf8') + '\n// altered\n');
    });
    const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: pathToFileURL(altered).href });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/failed verification: the sha256 of its DuckDB 1\.5\.5 headers is [0-9a-f]{64}, but scripts\/duckdb-lines\.json pins 6d90bf44a9155d9e944eb3527915f4a54a586b513bb6fd2c8f7d379506c8615c \(DuckDB's source at tag v1\.5\.5/);
    expect(r.stderr).toMatch(/the build stops rather than compile against it/);
    expect(existsSync(join(pkg, '.cache', `duckdb-${L.duckdb}`))).toBe(false);
    // A wrong pin (DUCKDB_VORTEX_HEADERS_SHA256) is refused the same way, for a genuine archive.
    const pinned = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: pathToFileURL(archiveLatest(dir)).href, DUCKDB_VORTEX_HEADERS_SHA256: '0'.repeat(64) });
    expect(pinned.status).toBe(1);
    expect(pinned.stderr).toMatch(/failed verification[\s\S]*pins 0{64} \(DUCKDB_VORTEX_HEADERS_SHA256\)/);
  });

  it('refuses what is not an archive, and says where to get the headers when nothing is found', () => {
    const pkg = packageCopy(join(dir, 'none'));
    const bogus = join(dir, `duckdb-${L.duckdb}-headers.tar.gz`);
    writeFileSync(bogus, 'not the headers');
    const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_HEADERS: bogus });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is not a readable \.tar\.gz source archive/);
    const gone = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_SOURCE_URL: 'file:///nonexistent/duckdb.tar.gz' });
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(/file:\/\/\/nonexistent\/duckdb\.tar\.gz does not exist/);
    const nowhere = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_HEADERS: join(dir, 'missing'), DUCKDB_VORTEX_SOURCE_URL: 'ftp://example.invalid/x' });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toMatch(/must be an https:\/\/, http:\/\/ or file:\/\/ URL/);
  });

  it('verifies a checkout named by DUCKDB_VORTEX_HEADERS in place', () => {
    const pkg = packageCopy(join(dir, 'co'));
    const checkout = join(dir, 'checkout');
    mkdirSync(checkout);
    execFileSync('tar', ['-xzf', shared, '-C', checkout]);
    const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_HEADERS: join(checkout, `duckdb-${L.duckdb}`) });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(join(checkout, `duckdb-${L.duckdb}`, 'src', 'include'));
    writeFileSync(join(checkout, `duckdb-${L.duckdb}`, 'src', 'include', 'duckdb', 'extra.hpp'), '#pragma once\n');
    const changed = headers(pkg, { DUCKDB_VORTEX_NODE_API: L.nodeApi, DUCKDB_VORTEX_HEADERS: join(checkout, `duckdb-${L.duckdb}`) });
    expect(changed.status).toBe(1);
    expect(changed.stderr).toMatch(/the checkout .* failed verification/);
  });

  // Releases whose default source is the `duckdb` npm package (which ships DuckDB's source): its tree has its own pin.
  for (const l of pinnedLines.filter((x) => x.headers.npm)) {
    it(`${l.duckdb}: an archive made from the ${l.headers.npm!.package} npm tarball verifies (its own pinned tree)`, async () => {
      const pkg = packageCopy(join(dir, `npm-${l.duckdb}`));
      const work = join(dir, `npm-x-${l.duckdb}`);
      mkdirSync(work);
      const out = JSON.parse((await run('npm', ['pack', l.headers.npm!.package, '--json', '--ignore-scripts', '--pack-destination', work])).stdout);
      const tgz = join(work, out[0].filename);
      execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/src/duckdb/src/include', 'package/src/duckdb/third_party']);
      const archive = join(dir, `duckdb-${l.duckdb}-src.tar.gz`);
      execFileSync('tar', ['-czf', archive, '-C', join(work, 'package', 'src'), 'duckdb']);
      const r = headers(pkg, { DUCKDB_VORTEX_NODE_API: l.nodeApi, DUCKDB_VORTEX_SOURCE_URL: pathToFileURL(archive).href });
      expect(r.status, r.stderr).toBe(0);
      const npmPin = Object.entries(l.headers.sha256).find(([, what]) => what.includes('npm'))![0];
      expect(r.stderr).toMatch(new RegExp(`DuckDB ${esc(l.duckdb)} headers verified \\(sha256 ${npmPin}\\)`));
    }, 120_000);
  }

  it.skipIf(!existsSync('/usr/bin/script'))('announces a compile on the terminal even when npm swallows the script\'s output', () => {
    // npm (without --foreground-scripts) pipes an install script's output away; the notice is also
    // written to the terminal. Here: stderr discarded, a pseudo-terminal (script(1)) records the tty.
    const pkg = packageCopy(join(dir, 'tty'));
    for (const f of ['install.mjs', 'build-gyp.mjs']) cpSync(join(root, 'scripts', f), join(pkg, 'scripts', f));
    const tty = join(dir, 'tty.txt');
    const r = spawnSync('script', ['-qec', `${process.execPath} scripts/install.mjs 2>/dev/null`, tty], {
      cwd: pkg, encoding: 'utf8',
      env: { ...process.env, INIT_CWD: pkg, DUCKDB_VORTEX_NODE_API: undefined, DUCKDB_VORTEX_HEADERS: undefined, DUCKDB_VORTEX_SOURCE_URL: 'file:///nonexistent/duckdb.tar.gz' } as NodeJS.ProcessEnv,
    });
    expect(r.status).not.toBe(0); // the build then fails at once: no source archive
    expect(readFileSync(tty, 'utf8')).toMatch(new RegExp(`no prebuilt binary for DuckDB ${esc(DEV.duckdb)} on [\\w-]+: compiling the native addon from source now\\. This takes a few minutes[\\s\\S]*--foreground-scripts`));
  });
});
