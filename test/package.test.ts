import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

// The packaging path: node-gyp builds the prebuilt binary (prebuildify), `npm pack` ships it,
// and the tarball installs into an empty project next to @duckdb/node-api with no compiler.
// Slow (a full node-gyp build), so it runs where VORTEX_SLOW_TESTS=1 (as .ci/run sets).
const slow = process.env.VORTEX_SLOW_TESTS === '1';
const root = join(__dirname, '..');
// Asynchronous, so the test worker stays responsive during minutes-long builds.
const run = promisify(execFile);

describe.skipIf(!slow)('prebuilt package', () => {
  const dir = tempDir('vtx-pack-');

  it('builds with node-gyp, packs, and installs without a compiler', async () => {
    const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', JOBS: 'max' };
    // Work on a copy: node-gyp rebuilds build/ in place, which the other test files are using.
    const src = join(dir, 'src');
    const skip = new Set(['node_modules', 'build', 'build-asan', 'prebuilds', '.git', 'scratch', 'bench/data', 'fuzz/corpus-run', 'fuzz/out']);
    cpSync(root, src, { recursive: true, filter: (p) => !skip.has(relative(root, p).split(sep).join('/')) });
    symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'));
    await run('npm', ['run', 'prebuild'], { cwd: src, env, maxBuffer: 64 << 20 });
    const prebuilds = join(src, 'prebuilds', `${process.platform}-${process.arch}`);
    expect(readdirSync(prebuilds).some((f) => f.endsWith('.node'))).toBe(true);

    const packed = JSON.parse((await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: src, env, maxBuffer: 64 << 20 })).stdout);
    const tarball = join(dir, packed[0].filename);
    const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
    expect(files.some((f) => f.startsWith('prebuilds/'))).toBe(true);
    expect(files).toContain('dist/index.mjs');
    expect(files).toContain('dist/index.d.ts');

    // Any compiler the install might reach for fails loudly.
    const fakeBin = join(dir, 'no-compilers');
    mkdirSync(fakeBin);
    for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'cmake']) {
      writeFileSync(join(fakeBin, tool), `#!/bin/sh\necho "compiler ${tool} must not run" >&2\nexit 1\n`);
      chmodSync(join(fakeBin, tool), 0o755);
    }
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    const installEnv = { ...env, PATH: `${fakeBin}:${process.env.PATH}`, npm_config_node_gyp: '/bin/false', CXX: '/bin/false', CC: '/bin/false' };
    await run('npm', ['install', tarball, '@duckdb/node-api@1.4.4-r.4'], { cwd: app, env: installEnv, maxBuffer: 64 << 20 });
    expect(existsSync(join(app, 'node_modules', 'duckdb-vortex', 'build'))).toBe(false);

    const script = (mod: string) => `
      const { DuckDBInstance } = ${mod === 'esm' ? "await import('@duckdb/node-api')" : "require('@duckdb/node-api')"};
      const { registerVortex } = ${mod === 'esm' ? "await import('duckdb-vortex')" : "require('duckdb-vortex')"};
      const conn = await (await DuckDBInstance.create()).connect();
      const r = await registerVortex(conn);
      await conn.run("COPY (SELECT range AS x FROM range(1000)) TO 'p.vtx' (FORMAT vortex)");
      const rows = (await conn.runAndReadAll("SELECT sum(x), count(*) FROM 'p.vtx'")).getRowsJS();
      const plan = (await conn.runAndReadAll("EXPLAIN SELECT sum(x) FROM 'p.vtx'")).getRowsJS()[0][1];
      console.log(JSON.stringify({ registered: r.registered, rows: rows.map((x) => x.map(String)), pushed: plan.includes('Pushed Aggregates') }));`;
    writeFileSync(join(app, 'check.mjs'), script('esm'));
    writeFileSync(join(app, 'check.cjs'), `(async () => {${script('cjs')}})().catch((e) => { console.error(e); process.exit(1); });`);
    for (const f of ['check.mjs', 'check.cjs']) {
      const out = JSON.parse((await run(process.execPath, [f], { cwd: app })).stdout.trim().split('\n').pop()!);
      expect(out).toEqual({ registered: true, rows: [['499500', '1000']], pushed: true });
    }
  }, 900_000);

  it('says how to build when the addon is missing', () => {
    const out = execFileSync(process.execPath, ['-e', `
      process.env.VORTEX_ADDON_PATH = '/nonexistent/duckdb_vortex.node';
      const { DuckDBInstance } = require('@duckdb/node-api');
      const { registerVortex } = require('./dist/index.js');
      DuckDBInstance.create().then((i) => i.connect()).then(registerVortex)
        .then(() => console.log('no error'), (e) => console.log(e.message));`], { cwd: root, encoding: 'utf8' });
    expect(out).toMatch(/native addon could not be loaded[\s\S]*npm run build:native[\s\S]*node-gyp rebuild/);
  });
});
