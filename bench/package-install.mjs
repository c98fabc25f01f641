#!/usr/bin/env node
// What shipping every prebuilt binary in one package costs a service's install, against the
// smallest alternative (per-platform, per-release optional packages, of which npm would install one
// binary): packs this package with prebuilds/ as it is, and again with only one release's binary,
// then installs each next to that release's @duckdb/node-api into fresh projects (npm's cache warm,
// as on a CI runner or a developer machine after the first install) and prints sizes and median times.
//   node bench/package-install.mjs [--runs 5] [--release <X.Y.Z>]   (after npm run prebuild)
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LINES, root } from '../scripts/duckdb-headers.mjs';

const support = createRequire(import.meta.url)('../scripts/support.cjs');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, release: { type: 'string' } } });
const platform = `${process.platform}-${process.arch}`;
const line = values.release ? LINES.find((l) => l.duckdb === values.release) : LINES[LINES.length - 1];
const nodeApi = support.nodeApiOf(line, platform);
const work = mkdtempSync(join(tmpdir(), 'vtx-pkg-bench-'));
const npm = (args, cwd) => execFileSync('npm', ['--no-audit', '--no-fund', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function countBinaries(dir) {
  let n = 0;
  for (const p of readdirSync(dir)) {
    if (p === 'manifest.json') continue;
    for (const d of readdirSync(join(dir, p))) n += statSync(join(dir, p, d, 'duckdb_vortex.node'), { throwIfNoEntry: false }) ? 1 : 0;
  }
  return n;
}

try {
  execFileSync('npm', ['run', 'build:ts'], { cwd: root, stdio: 'ignore' });
  const full = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root))[0];
  // The alternatives: copies of the package with only this platform's binaries (a per-platform
  // optional package, as npm would pick by os/cpu), and with only this release's binary for it.
  const files = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root))[0].files.map((f) => f.path);
  const variant = (name, keep) => {
    const copy = join(work, name);
    for (const f of files.filter((p) => !p.startsWith('prebuilds/') || keep(p))) {
      mkdirSync(join(copy, f, '..'), { recursive: true });
      cpSync(join(root, f), join(copy, f));
    }
    mkdirSync(join(copy, 'pack'));
    const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', join(copy, 'pack')], copy))[0];
    return { tarball: join(copy, 'pack', packed.filename), size: packed.size, binaries: packed.files.filter((f) => f.path.endsWith('.node')).length };
  };
  const perPlatform = variant('platform', (p) => p.startsWith(`prebuilds/${platform}/`));
  const one = variant('one', (p) => p.startsWith(`prebuilds/${platform}/duckdb-${line.duckdb}/`));
  const variants = [
    { name: `one package, every binary (${countBinaries(join(root, 'prebuilds'))})`, tarball: join(work, full.filename), size: full.size },
    { name: `this platform's binaries (${perPlatform.binaries}: a per-platform optional package)`, ...perPlatform },
    { name: 'one binary (a per-platform, per-release package)', ...one },
  ];
  // Warm npm's cache with the node-api and both tarballs' dependencies first.
  for (const v of variants) {
    const app = join(work, `warm-${variants.indexOf(v)}`);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name":"warm","private":true}');
    npm(['install', v.tarball, `@duckdb/node-api@${nodeApi}`], app);
  }
  const times = variants.map(() => []);
  for (let i = 0; i < Number(values.runs); i++) {
    for (const [k, v] of variants.entries()) {
      const app = join(work, `app-${k}-${i}`);
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}');
      const t = process.hrtime.bigint();
      npm(['install', '--prefer-offline', v.tarball, `@duckdb/node-api@${nodeApi}`], app);
      times[k].push(Number(process.hrtime.bigint() - t) / 1e6);
      rmSync(app, { recursive: true, force: true });
    }
  }
  console.log(`npm install <tarball> @duckdb/node-api@${nodeApi} on ${platform}, warm cache, median of ${values.runs}:`);
  for (const [k, v] of variants.entries()) console.log(`  ${v.name}: ${(v.size / 1e6).toFixed(1)} MB packed, ${Math.round(median(times[k]))} ms`);
  for (const k of [1, 2]) console.log(`  every binary against ${variants[k].name.split(' (')[0]}: ${(median(times[0]) / median(times[k])).toFixed(2)}x the time, ${(variants[0].size / variants[k].size).toFixed(1)}x the bytes`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
