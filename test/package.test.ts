import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

// The packaging path: node-gyp builds one prebuilt binary per DuckDB line (npm run prebuild),
// `npm pack` ships them, and the tarball installs with no compiler into an empty project next to
// each line's @duckdb/node-api, where the loader picks the matching binary.
// Slow (a full node-gyp build), so it runs where VORTEX_SLOW_TESTS=1 (as .ci/run sets).
const slow = process.env.VORTEX_SLOW_TESTS === '1';
const root = join(__dirname, '..');
// Asynchronous, so the test worker stays responsive during minutes-long builds.
const run = promisify(execFile);

describe.skipIf(!slow)('prebuilt package', () => {
  const dir = tempDir('vtx-pack-');
  const lines: { duckdb: string; nodeApi: string }[] = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')).lines;

  it('prebuilds every DuckDB line with node-gyp, packs, and installs without a compiler next to each', async () => {
    // 1.5.x headers come from ../shared/duckdb-headers beside the checkout; the copy is elsewhere.
    const env = {
      ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', JOBS: '2',
      DUCKDB_VORTEX_HEADERS: process.env.DUCKDB_VORTEX_HEADERS ?? resolve(root, '..', 'shared', 'duckdb-headers'),
    };
    // Work on a copy: node-gyp rebuilds build/ in place, which the other test files are using.
    // .cache/ (verified headers, the other line's node-api) is shared, git-ignored and keyed by content.
    const src = join(dir, 'src');
    const skip = new Set(['node_modules', 'build', 'build-asan', 'prebuilds', '.git', '.cache', 'scratch', 'bench/data', 'fuzz/corpus-run', 'fuzz/out']);
    cpSync(root, src, { recursive: true, filter: (p) => !skip.has(relative(root, p).split(sep).join('/')) });
    symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'));
    mkdirSync(join(root, '.cache'), { recursive: true });
    symlinkSync(join(root, '.cache'), join(src, '.cache'));
    await run('npm', ['run', 'prebuild'], { cwd: src, env, maxBuffer: 64 << 20 });
    const prebuilds = join(src, 'prebuilds', `${process.platform}-${process.arch}`);
    expect(readdirSync(prebuilds).sort()).toEqual(lines.map((l) => `duckdb-${l.duckdb}`));
    for (const l of lines) expect(existsSync(join(prebuilds, `duckdb-${l.duckdb}`, 'duckdb_vortex.node'))).toBe(true);
    // .ci/run then tests the shipped 1.5 binary instead of building it again.
    if (process.env.VORTEX_KEEP_PREBUILDS) cpSync(join(src, 'prebuilds'), process.env.VORTEX_KEEP_PREBUILDS, { recursive: true });

    const packed = JSON.parse((await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: src, env, maxBuffer: 64 << 20 })).stdout);
    const tarball = join(dir, packed[0].filename);
    const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
    for (const l of lines) expect(files).toContain(`prebuilds/${process.platform}-${process.arch}/duckdb-${l.duckdb}/duckdb_vortex.node`);
    expect(files).toContain('dist/index.mjs');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('scripts/duckdb-lines.json');

    // Any compiler the install might reach for fails loudly.
    const fakeBin = join(dir, 'no-compilers');
    mkdirSync(fakeBin);
    for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'cmake']) {
      writeFileSync(join(fakeBin, tool), `#!/bin/sh\necho "compiler ${tool} must not run" >&2\nexit 1\n`);
      chmodSync(join(fakeBin, tool), 0o755);
    }
    const installEnv = { ...env, PATH: `${fakeBin}:${process.env.PATH}`, npm_config_node_gyp: '/bin/false', CXX: '/bin/false', CC: '/bin/false' };
    delete (installEnv as Record<string, string | undefined>).DUCKDB_VORTEX_HEADERS;
    const script = (mod: string) => `
      const { DuckDBInstance, version } = ${mod === 'esm' ? "await import('@duckdb/node-api')" : "require('@duckdb/node-api')"};
      const { registerVortex } = ${mod === 'esm' ? "await import('duckdb-vortex')" : "require('duckdb-vortex')"};
      const conn = await (await DuckDBInstance.create()).connect();
      const r = await registerVortex(conn);
      await conn.run("COPY (SELECT range AS x FROM range(1000)) TO 'p.vtx' (FORMAT vortex)");
      const rows = (await conn.runAndReadAll("SELECT sum(x), count(*) FROM 'p.vtx'")).getRowsJS();
      const plan = (await conn.runAndReadAll("EXPLAIN SELECT sum(x), count(*) FROM 'p.vtx'")).getRowsJS()[0][1];
      console.log(JSON.stringify({ duckdb: version(), registered: r.registered, rows: rows.map((x) => x.map(String)), pushed: plan.includes('Pushed Aggregates') }));`;

    // One empty project per DuckDB line, each next to its @duckdb/node-api.
    await Promise.all(lines.map(async (l) => {
      const app = join(dir, `app-${l.duckdb}`);
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: `app-${l.duckdb.replace(/\./g, '-')}`, version: '1.0.0', private: true }));
      await run('npm', ['install', tarball, `@duckdb/node-api@${l.nodeApi}`], { cwd: app, env: installEnv, maxBuffer: 64 << 20 });
      expect(existsSync(join(app, 'node_modules', 'duckdb-vortex', 'build'))).toBe(false);
      writeFileSync(join(app, 'check.mjs'), script('esm'));
      writeFileSync(join(app, 'check.cjs'), `(async () => {${script('cjs')}})().catch((e) => { console.error(e); process.exit(1); });`);
      for (const f of ['check.mjs', 'check.cjs']) {
        const out = JSON.parse((await run(process.execPath, [f], { cwd: app })).stdout.trim().split('\n').pop()!);
        expect(out, `${l.duckdb} ${f}`).toEqual({ duckdb: `v${l.duckdb}`, registered: true, rows: [['499500', '1000']], pushed: true });
      }
    }));
  }, 1_500_000);

  it('says how to build when the addon is missing', () => {
    const out = execFileSync(process.execPath, ['-e', `
      process.env.VORTEX_ADDON_PATH = '/nonexistent/duckdb_vortex.node';
      const { DuckDBInstance } = require('@duckdb/node-api');
      const { registerVortex } = require('./dist/index.js');
      DuckDBInstance.create().then((i) => i.connect()).then(registerVortex)
        .then(() => console.log('no error'), (e) => console.log(e.message));`], { cwd: root, encoding: 'utf8' });
    expect(out).toMatch(/native addon could not be loaded[\s\S]*npm run build:native[\s\S]*npm rebuild duckdb-vortex/);
  });
});
