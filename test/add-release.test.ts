import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';
import { LINES } from './lines';

// `npm run add-duckdb-release -- <version> --source <tarball>` (scripts/add-duckdb-release.mjs), in a
// copy of the package's scripts: removing a release from duckdb-lines.json and adding it back from its
// source (the shared header tarball) gives back the very entry, its README row and nothing else.
// It asks the npm registry for the node-api revisions, as a maintainer's run does.
const root = join(__dirname, '..');
const shared = resolve(root, '..', 'shared', 'duckdb-headers');
// A release with arm64 bindings on another revision than its x64 one, when the list has one (the
// platforms entry is then exercised), else the oldest.
const target = LINES.find((l) => l.platforms?.['linux-arm64'] && l.platforms['linux-arm64'].nodeApi !== l.nodeApi && !('npm' in (l as { headers?: object }).headers!)) ?? LINES[0];

interface Entry { duckdb: string; headers: { sha256: Record<string, string> } }

describe.skipIf(!existsSync(join(shared, `duckdb-${target.duckdb}-headers.tar.gz`)))('add-duckdb-release', () => {
  it(`adds DuckDB ${target.duckdb} back exactly as listed, in version order, with its README row`, () => {
    const dir = tempDir('vtx-add-');
    const pkg = join(dir, 'pkg');
    mkdirSync(join(pkg, 'scripts'), { recursive: true });
    for (const f of ['add-duckdb-release.mjs', 'duckdb-headers.mjs', 'readme-versions.mjs', 'support.cjs']) cpSync(join(root, 'scripts', f), join(pkg, 'scripts', f));
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
    const original = readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8');
    const json = JSON.parse(original) as { lines: Entry[] };
    const entry = json.lines.find((l) => l.duckdb === target.duckdb)!;
    writeFileSync(join(pkg, 'scripts', 'duckdb-lines.json'), JSON.stringify({ ...json, lines: json.lines.filter((l) => l !== entry) }, null, 2) + '\n');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    writeFileSync(join(pkg, 'README.md'), readme.split('\n').filter((l) => !l.startsWith(`| v${target.duckdb} |`)).join('\n'));
    const commit = /commit ([0-9a-f]{40})/.exec(Object.values(entry.headers.sha256)[0])?.[1];
    const r = spawnSync(process.execPath, [join(pkg, 'scripts', 'add-duckdb-release.mjs'), target.duckdb, '--source', join(shared, `duckdb-${target.duckdb}-headers.tar.gz`),
      ...(commit ? ['--commit', commit] : []), '--no-build'], { cwd: pkg, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(pkg, 'scripts', 'duckdb-lines.json'), 'utf8')).toBe(original);
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe(readme);
  }, 120_000);

  it('refuses a source that is not DuckDB\'s, and a version that is not one', () => {
    const dir = tempDir('vtx-add-bad-');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'add-duckdb-release.mjs'), '9.9.9', '--source', dir, '--no-build'], { cwd: root, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/holds no src\/include\/duckdb\.hpp/);
    const usage = spawnSync(process.execPath, [join(root, 'scripts', 'add-duckdb-release.mjs'), 'latest'], { cwd: root, encoding: 'utf8' });
    expect(usage.status).not.toBe(0);
    expect(usage.stderr).toMatch(/usage: npm run add-duckdb-release/);
  });
});
