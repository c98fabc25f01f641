import { execFile, execFileSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers';
import { LATEST, LINES, NEWEST, type Line } from './lines';

// The package as a service gets it (issue 24). Once: a copy of the repository outside it (no
// ../shared beside it, a fresh .cache) prebuilds every DuckDB line with node-gyp from DuckDB
// source archives given as file:// URLs (headers verified against the pinned sha256), and
// `npm pack` packs it. Then, in fresh projects next to each supported @duckdb/node-api, the
// package is installed every ordinary way — the tarball (with every compiler made to fail), a
// folder (a symlink), `npm link`, a git+file:// URL (built from source by the install, as git
// installs are), pnpm's and yarn's defaults — and in each, registration, a COPY/scan round trip
// and a pushed aggregate run from ESM and CJS. An unsupported node-api gets the one clear error at
// install and at registerVortex; examples/service runs from the tarball.
// Slow (node-gyp builds), so it runs where VORTEX_SLOW_TESTS=1 (as .ci/run sets).
const slow = process.env.VORTEX_SLOW_TESTS === '1';
const root = join(__dirname, '..');
const run = promisify(execFile);
const big = { maxBuffer: 256 << 20 };
// The releases installed every way: the newest of each minor line (VORTEX_PACKAGE_TEST_LINES=X.Y.Z,...
// chooses others). scripts/smoke-lines.mjs installs the tarball next to every release.
const lines: Line[] = process.env.VORTEX_PACKAGE_TEST_LINES ? LINES.filter((l) => process.env.VORTEX_PACKAGE_TEST_LINES!.split(',').includes(l.duckdb)) : NEWEST;
const sharedDir = resolve(root, '..', 'shared', 'duckdb-headers');
const sharedHeaders = (l: Line) => join(sharedDir, `duckdb-${l.duckdb}-headers.tar.gz`);
const platform = `${process.platform}-${process.arch}`;
const support = createRequire(join(root, 'package.json'))('./scripts/support.cjs') as {
  lineOf(v: string): Line | undefined;
  duckdbOf(v: string): string;
  unsupportedMessage(v: { duckdb: string; nodeApi?: string }): string;
};

/** Runs a command: its stdout and stderr together (or, with `stdoutOnly`, stdout); on failure the error carries both. */
async function sh(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; stdoutOnly?: boolean }): Promise<string> {
  try {
    const r = await run(cmd, args, { cwd: opts.cwd, env: opts.env, ...big });
    return opts.stdoutOnly ? r.stdout : `${r.stdout}${r.stderr}`;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${opts.cwd}: ${x.message}\n${x.stdout ?? ''}\n${x.stderr ?? ''}`);
  }
}

/** Registration, a COPY/scan round trip and a pushed aggregate, from ESM or CJS, as a service would write it. */
function checkScript(mod: 'esm' | 'cjs'): string {
  const body = `
    const { DuckDBInstance, version } = ${mod === 'esm' ? "await import('@duckdb/node-api')" : "require('@duckdb/node-api')"};
    const { registerVortex } = ${mod === 'esm' ? "await import('duckdb-vortex')" : "require('duckdb-vortex')"};
    const conn = await (await DuckDBInstance.create()).connect();
    const r = await registerVortex(conn, { rules: ['count', 'sum'] });
    await conn.run("COPY (SELECT range AS x FROM range(1000)) TO 'p-${mod}.vtx' (FORMAT vortex)");
    const rows = (await conn.runAndReadAll("SELECT sum(x), count(*) FROM 'p-${mod}.vtx'")).getRowsJS();
    const plan = (await conn.runAndReadAll("EXPLAIN SELECT sum(x), count(*) FROM 'p-${mod}.vtx'")).getRowsJS()[0][1];
    console.log(JSON.stringify({ duckdb: version(), registered: r.registered, rows: rows.map((x) => x.map(String)), pushed: plan.includes('Pushed Aggregates') }));`;
  return mod === 'esm' ? body : `(async () => {${body}})().catch((e) => { console.error(e); process.exit(1); });`;
}

/** The checks in an installed project, from ESM and CJS (and, for TypeScript, a type check of the call). */
async function checkProject(app: string, l: { duckdb: string }, label: string): Promise<void> {
  writeFileSync(join(app, 'check.mjs'), checkScript('esm'));
  writeFileSync(join(app, 'check.cjs'), checkScript('cjs'));
  for (const f of ['check.mjs', 'check.cjs']) {
    const out = await sh(process.execPath, [f], { cwd: app, stdoutOnly: true });
    expect(JSON.parse(out.trim().split('\n').pop()!), `${label} ${l.duckdb} ${f}`).toEqual({ duckdb: `v${l.duckdb}`, registered: true, rows: [['499500', '1000']], pushed: true });
  }
}

function newProject(dir: string, name: string, deps: Record<string, string> = {}): string {
  const app = join(dir, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, dependencies: deps }));
  return app;
}

describe.skipIf(!slow || !lines.every((l) => existsSync(sharedHeaders(l))))('the packed package, installed every ordinary way', () => {
  const dir = tempDir('vtx-pack-');
  const src = join(dir, 'duckdb-vortex');
  const archives = join(dir, 'archives');
  let tarball = '';
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', JOBS: '2' } as NodeJS.ProcessEnv;
  delete env.DUCKDB_VORTEX_HEADERS;
  delete env.DUCKDB_VORTEX_NODE_API;
  // DuckDB's source archives as file:// URLs, repacked from the shared header tarballs.
  env.DUCKDB_VORTEX_SOURCE_URL = pathToFileURL(join(archives, 'duckdb-{version}.tar.gz')).href.replace('%7B', '{').replace('%7D', '}');
  // Every compiler the tarball install might reach for fails loudly.
  const noCompilers = join(dir, 'no-compilers');
  const installEnv = { ...env, PATH: `${noCompilers}:${process.env.PATH}`, npm_config_node_gyp: '/bin/false', CXX: '/bin/false', CC: '/bin/false' };

  beforeAll(async () => {
    mkdirSync(archives);
    for (const l of lines) {
      const x = join(archives, `x-${l.duckdb}`);
      mkdirSync(x);
      execFileSync('tar', ['-xzf', sharedHeaders(l), '-C', x]);
      execFileSync('tar', ['-czf', join(archives, `duckdb-${l.duckdb}.tar.gz`), '-C', x, `duckdb-${l.duckdb}`]);
    }

    // A copy of the repository outside it: no ../shared beside it, its own .cache.
    const skip = new Set(['node_modules', 'build', 'build-asan', 'prebuilds', '.git', '.cache', 'scratch', 'bench/data', 'fuzz/corpus-run', 'fuzz/corpus-kept', 'fuzz/out', 'dist']);
    cpSync(root, src, { recursive: true, filter: (p) => !skip.has(relative(root, p).split(sep).join('/')) && !/\.tgz$|\.ci-results/.test(p) });
    symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'));
    expect(existsSync(resolve(src, '..', 'shared'))).toBe(false);
    await sh('npm', ['run', 'build:ts'], { cwd: src, env });
    const prebuilds = join(src, 'prebuilds', platform);
    if (process.env.VORTEX_PACKAGE_TEST_BINARIES) {
      // Iterating on this test: binaries already built (a folder of duckdb-<version>/duckdb_vortex.node, e.g. build/
      // after building both lines with cmake-js) stand in for the prebuild, which is not tested then.
      for (const l of lines) {
        const from = [join(process.env.VORTEX_PACKAGE_TEST_BINARIES, `duckdb-${l.duckdb}`, 'duckdb_vortex.node'), join(process.env.VORTEX_PACKAGE_TEST_BINARIES, `duckdb-${l.duckdb}`, 'Release', 'duckdb_vortex.node')].find((f) => existsSync(f))!;
        mkdirSync(join(prebuilds, `duckdb-${l.duckdb}`), { recursive: true });
        cpSync(from, join(prebuilds, `duckdb-${l.duckdb}`, 'duckdb_vortex.node'));
      }
    } else {
      const prebuildLog = await sh('npm', ['run', 'prebuild', '--', '--only', lines.map((l) => l.duckdb).join(','), '--no-smoke'], { cwd: src, env });
      for (const l of lines) expect(prebuildLog).toMatch(new RegExp(`DuckDB ${l.duckdb.replace(/\./g, '\\.')} headers verified \\(sha256 [0-9a-f]{64}\\)`));
    }
    expect(readdirSync(prebuilds).sort()).toEqual(lines.map((l) => `duckdb-${l.duckdb}`).sort());
    // .ci/run then tests the shipped binaries instead of building them again.
    if (process.env.VORTEX_KEEP_PREBUILDS) cpSync(join(src, 'prebuilds'), process.env.VORTEX_KEEP_PREBUILDS, { recursive: true });
    // Binaries for other platforms (npm run prebuild:arm64, too slow for CI) are packed when present.
    for (const other of existsSync(join(root, 'prebuilds')) ? readdirSync(join(root, 'prebuilds')) : []) {
      if (other !== platform) cpSync(join(root, 'prebuilds', other), join(src, 'prebuilds', other), { recursive: true });
    }
    const pack = JSON.parse(await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: src, env, stdoutOnly: true }));
    tarball = join(dir, pack[0].filename);
    const files: string[] = pack[0].files.map((f: { path: string }) => f.path);
    for (const p of readdirSync(join(src, 'prebuilds'))) {
      for (const l of lines) {
        if (existsSync(join(src, 'prebuilds', p, `duckdb-${l.duckdb}`, 'duckdb_vortex.node'))) expect(files).toContain(`prebuilds/${p}/duckdb-${l.duckdb}/duckdb_vortex.node`);
      }
    }
    for (const f of ['LICENSE', 'README.md', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts', 'scripts/duckdb-lines.json', 'scripts/support.cjs', 'scripts/install.mjs', 'binding.gyp']) expect(files).toContain(f);
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('examples/'))).toBe(false);

    mkdirSync(noCompilers);
    for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'cmake']) {
      writeFileSync(join(noCompilers, tool), `#!/bin/sh\necho "compiler ${tool} must not run" >&2\nexit 1\n`);
      chmodSync(join(noCompilers, tool), 0o755);
    }
  }, 2_400_000);

  it('the tarball: uses the prebuilt binary without compiling, next to each line', async () => {
    for (const l of lines) {
      const app = newProject(dir, `tarball-${l.duckdb}`);
      await sh('npm', ['install', tarball, `@duckdb/node-api@${l.nodeApi}`], { cwd: app, env: installEnv });
      expect(existsSync(join(app, 'node_modules', 'duckdb-vortex', 'build'))).toBe(false);
      await checkProject(app, l, 'tarball');
    }
  }, 600_000);

  it('a folder (npm install <folder>, a symlink) and npm link: the service\'s node-api, not the folder\'s own', async () => {
    // The folder resolves its own dev dependency (through node_modules); the
    // service's copy is another one, which registerVortex must accept and follow.
    const prefix = join(dir, 'npm-global');
    for (const l of lines) {
      const app = newProject(dir, `folder-${l.duckdb}`, { '@duckdb/node-api': l.nodeApi });
      await sh('npm', ['install'], { cwd: app, env });
      await sh('npm', ['install', src], { cwd: app, env });
      expect(readlinkOf(join(app, 'node_modules', 'duckdb-vortex'))).toBe(true);
      await checkProject(app, l, 'folder');
      // TypeScript: the service's DuckDBConnection is accepted by registerVortex's types.
      writeFileSync(join(app, 'check.mts'), `import { DuckDBInstance } from '@duckdb/node-api';\nimport { registerVortex, setPushdown } from 'duckdb-vortex';\nconst conn = await (await DuckDBInstance.create()).connect();\nconst r: { registered: boolean } = await registerVortex(conn, { rules: ['sum', 'count_star'], pushdown: { min: false } });\nawait setPushdown(conn, { sum: r.registered });\n`);
      await sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'check.mts'], { cwd: app });

      const linked = newProject(dir, `link-${l.duckdb}`, { '@duckdb/node-api': l.nodeApi });
      await sh('npm', ['install'], { cwd: linked, env });
      const linkEnv = { ...env, npm_config_prefix: prefix };
      await sh('npm', ['link'], { cwd: src, env: linkEnv });
      await sh('npm', ['link', 'duckdb-vortex'], { cwd: linked, env: linkEnv });
      expect(readlinkOf(join(linked, 'node_modules', 'duckdb-vortex'))).toBe(true);
      await checkProject(linked, l, 'npm link');
    }
  }, 900_000);

  it('pnpm and yarn with their defaults', async () => {
    for (const l of lines) {
      const p = newProject(dir, `pnpm-${l.duckdb}`);
      await sh('npx', ['--yes', 'pnpm@10', 'add', tarball, `@duckdb/node-api@${l.nodeApi}`], { cwd: p, env: installEnv });
      await checkProject(p, l, 'pnpm');
      // yarn 1 fails on an optional dependency the registry lacks, and some node-api revisions name
      // @duckdb/node-bindings-{darwin,win32,linux-arm64} of their revision, never published: yarn gets
      // the revision of the same DuckDB that published linux-arm64 bindings (so the same binary). A
      // release none of whose revisions did (duckdb-lines.json: linux-arm64 null) cannot be installed
      // by yarn 1 at all, with or without duckdb-vortex.
      const yarnNodeApi = l.platforms && 'linux-arm64' in l.platforms ? l.platforms['linux-arm64']?.nodeApi : l.nodeApi;
      if (!yarnNodeApi) continue;
      const y = newProject(dir, `yarn-${l.duckdb}`);
      await sh('npx', ['--yes', 'yarn@1', 'add', `file:${tarball}`, `@duckdb/node-api@${yarnNodeApi}`, '--non-interactive'], { cwd: y, env: { ...installEnv, YARN_CACHE_FOLDER: join(dir, 'yarn-cache') } });
      await checkProject(y, l, 'yarn');
    }
  }, 900_000);

  it('an unsupported @duckdb/node-api: the one clear error at install and at registerVortex', async () => {
    // The newest node-api on the registry whose DuckDB has no line (a newer release, or an older one).
    const published: string[] = JSON.parse(await sh('npm', ['view', '@duckdb/node-api', 'versions', '--json'], { cwd: dir, stdoutOnly: true }));
    const unsupported = published.filter((v) => !support.lineOf(v)).pop()!;
    const duckdb = support.duckdbOf(unsupported);
    const app = newProject(dir, 'unsupported');
    let installError = '';
    try {
      await sh('npm', ['install', tarball, `@duckdb/node-api@${unsupported}`], { cwd: app, env: installEnv });
    } catch (e) {
      installError = (e as Error).message;
    }
    expect(installError).toContain(support.unsupportedMessage({ duckdb, nodeApi: unsupported }));
    expect(installError).not.toMatch(/ERESOLVE/);
    // Installed without scripts, registerVortex says the same (it knows the DuckDB, not the package version).
    await sh('npm', ['install', '--ignore-scripts', tarball, `@duckdb/node-api@${unsupported}`], { cwd: app, env: installEnv });
    writeFileSync(join(app, 'check.cjs'), `
      const { DuckDBInstance } = require('@duckdb/node-api');
      const { registerVortex } = require('duckdb-vortex');
      DuckDBInstance.create().then((i) => i.connect()).then((c) => registerVortex(c))
        .then(() => console.log('registered'), (e) => console.log(e.message));`);
    const out = await sh(process.execPath, ['check.cjs'], { cwd: app, stdoutOnly: true });
    expect(out).toContain(support.unsupportedMessage({ duckdb }));
  }, 600_000);

  it('examples/service, installed from the tarball, serves the numbers DuckDB computes', async () => {
    const app = join(dir, 'service');
    cpSync(join(root, 'examples', 'service'), app, { recursive: true, filter: (p) => !/node_modules|data$/.test(p) });
    // The example names no DuckDB release (its README pins one, as a service does): the newest.
    await sh('npm', ['install', '--save-exact', tarball, `@duckdb/node-api@${LATEST.nodeApi}`], { cwd: app, env: installEnv });
    const child = spawn(process.execPath, ['server.mjs'], { cwd: app, env: { ...process.env, PORT: '0', DATA_DIR: join(app, 'data'), ROWS: '50000' } });
    try {
      const port = await new Promise<number>((ok, fail) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d;
          const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
          if (m) ok(Number(m[1]));
        });
        child.stderr.on('data', (d: Buffer) => (out += d));
        child.on('exit', (code) => fail(new Error(`service exited (${code}): ${out}`)));
        setTimeout(() => fail(new Error(`service did not start: ${out}`)), 120_000);
      });
      const get = async (path: string) => {
        const r = await fetch(`http://localhost:${port}${path}`);
        return { status: r.status, body: (await r.json()) as unknown };
      };
      expect(await get('/health')).toEqual({ status: 200, body: { ok: true, duckdb: `v${LATEST.duckdb}`, vortex: true } });
      // The same numbers from DuckDB itself, over the generator the service wrote its dataset from.
      const conn = await (await DuckDBInstance.create()).connect();
      const gen = `(SELECT i AS order_id, (['eu', 'us', 'apac', 'latam'])[i % 4 + 1] AS region, DATE '2025-01-01' + (i % 365)::INTEGER AS day,
        (((i * 7919) % 10000) / 100)::DECIMAL(10, 2) AS amount FROM range(50000) t(i))`;
      const expected = async (sql: string) => (await conn.runAndReadAll(sql.replace('$', gen))).getRowObjectsJson();
      expect(await get('/api/summary')).toEqual({ status: 200, body: (await expected('SELECT count(*) AS orders, sum(amount) AS revenue, avg(amount) AS average_order, min(day) AS first_day, max(day) AS last_day FROM $'))[0] });
      expect(await get('/api/regions')).toEqual({ status: 200, body: await expected('SELECT region, count(*) AS orders, sum(amount) AS revenue FROM $ GROUP BY region ORDER BY region') });
      expect(await get('/api/daily?from=2025-03-01&to=2025-03-07')).toEqual({ status: 200, body: await expected("SELECT day, count(*) AS orders, sum(amount) AS revenue FROM $ WHERE day BETWEEN DATE '2025-03-01' AND DATE '2025-03-07' GROUP BY day ORDER BY day") });
      expect((await get('/api/summary')).body).toMatchObject({ orders: '50000' });
      expect(await get('/api/daily?from=yesterday')).toEqual({ status: 400, body: { error: 'from and to must be dates (YYYY-MM-DD)' } });
      expect((await get('/nope')).status).toBe(404);
      // The service's aggregates are pushed into the reader.
      const explainOut = await sh(process.execPath, ['-e', `
        const { DuckDBInstance } = require('@duckdb/node-api'); const { registerVortex } = require('duckdb-vortex');
        (async () => { const c = await (await DuckDBInstance.create()).connect(); await registerVortex(c);
          console.log((await c.runAndReadAll("EXPLAIN SELECT count(*), sum(amount), min(day), max(day) FROM vortex_scan('data/orders.vtx')")).getRowsJS()[0][1]); })();`], { cwd: app });
      expect(explainOut).toContain('Pushed Aggregates');
    } finally {
      child.kill('SIGTERM');
    }
  }, 600_000);

  it('a fresh clone as a folder (npm install ../duckdb-vortex): its own dependencies, TypeScript and the addon are built there', async () => {
    // npm links a folder outside the service without installing its dependencies; its `prepare`
    // installs them (build-ts.mjs) and its `install` compiles for the service's DuckDB. A clone
    // has no prebuilt binaries. CI does the oldest line here (the git install does the newest).
    const parent = join(dir, 'fresh');
    const clone = join(parent, 'duckdb-vortex');
    cpSync(src, clone, { recursive: true, filter: (p) => !/[/\\](node_modules|prebuilds|build|dist|\.cache)$/.test(p) });
    const l = lines[0];
    const app = newProject(parent, 'service');
    const started = Date.now();
    const out = await sh('npm', ['install', '--foreground-scripts', '../duckdb-vortex', `@duckdb/node-api@${l.nodeApi}`], { cwd: app, env });
    console.log(`[package.test] fresh-clone folder install next to ${l.nodeApi}, with its source build: ${Math.round((Date.now() - started) / 1000)} s`);
    expect(readlinkOf(join(app, 'node_modules', 'duckdb-vortex'))).toBe(true);
    expect(out).toMatch(/has no dependencies installed of its own/);
    expect(out).toMatch(new RegExp(`no prebuilt binary for DuckDB ${l.duckdb.replace(/\./g, '\\.')} on ${platform}: compiling the native addon from source now`));
    expect(existsSync(join(clone, 'build', `duckdb-${l.duckdb}`, 'Release', 'duckdb_vortex.node'))).toBe(true);
    await checkProject(app, l, 'fresh folder');
    // The clone's own files are as they were: the dependencies were installed without saving.
    expect(readFileSync(join(clone, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(src, 'package-lock.json'), 'utf8'));
  }, 1_200_000);

  it('git+file://: npm prepares the clone (TypeScript only) and the install builds the addon from source', async () => {
    const repo = join(dir, 'git-repo');
    cpSync(src, repo, { recursive: true, filter: (p) => !/[/\\](node_modules|prebuilds|build|dist|\.cache)$/.test(p) });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'duckdb-vortex');
    // Each git install compiles the addon (minutes on two cores): CI does the newest line, whose
    // headers come from a file:// source archive; VORTEX_GIT_INSTALL_LINES=X.Y.Z,... does others.
    const gitLines = (process.env.VORTEX_GIT_INSTALL_LINES ?? lines[lines.length - 1].duckdb).split(',');
    for (const l of lines.filter((x) => gitLines.includes(x.duckdb))) {
      const app = newProject(dir, `git-${l.duckdb}`);
      const started = Date.now();
      const out = await sh('npm', ['install', '--foreground-scripts', `git+file://${repo}`, `@duckdb/node-api@${l.nodeApi}`], { cwd: app, env });
      const seconds = Math.round((Date.now() - started) / 1000);
      expect(out).toMatch(new RegExp(`no prebuilt binary for DuckDB ${l.duckdb.replace(/\./g, '\\.')} on ${platform}: compiling the native addon from source now`));
      expect(out).toMatch(/headers verified \(sha256/);
      expect(existsSync(join(app, 'node_modules', 'duckdb-vortex', 'build', `duckdb-${l.duckdb}`, 'Release', 'duckdb_vortex.node'))).toBe(true);
      console.log(`[package.test] git+file install next to ${l.nodeApi}, with its source build: ${seconds} s`);
      await checkProject(app, l, 'git');
    }
  }, 2_400_000);
});

function readlinkOf(p: string): boolean {
  try {
    return execFileSync('readlink', [p]).toString().trim().length > 0;
  } catch {
    return false;
  }
}

describe.skipIf(!slow)('a missing addon', () => {
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
