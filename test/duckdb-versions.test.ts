import { DuckDBInstance, version } from '@duckdb/node-api';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { addonCandidates, findAddon, loadAddon, supportedDuckDB } from '../src/native';
import { normalizeVersion } from '../src/version';
import { tempDir } from './helpers';
import { LATEST, LINES, UNSUPPORTED, type Line } from './lines';

// Every DuckDB release of the 1.4 and 1.5 lines from one source tree: scripts/duckdb-lines.json
// lists them, the loader picks the binary built for the DuckDB that @duckdb/node-api reports, and
// refuses any other.
const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const support = createRequire(join(root, 'package.json'))('./scripts/support.cjs') as {
  unsupportedMessage(v: { duckdb: string; nodeApi?: string }): string;
  suggestedPin(v: string, platform?: string): string;
  nodeApiOf(line: Line, platform?: string): string | null;
};

describe('DuckDB versions', () => {
  it('every line names its release, its node-api and the pinned sha256 of its headers, in version order', () => {
    const json = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')) as { lines: (Line & { headers: { sha256: Record<string, string> } })[] };
    const key = (v: string) => v.split('.').map((x) => x.padStart(4, '0')).join('.');
    expect(json.lines.map((l) => key(l.duckdb))).toEqual(json.lines.map((l) => key(l.duckdb)).sort());
    for (const l of json.lines) {
      expect(l.nodeApi, l.duckdb).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
      expect(Object.keys(l.headers.sha256).length, l.duckdb).toBeGreaterThan(0);
      for (const d of Object.keys(l.headers.sha256)) expect(d).toMatch(/^[0-9a-f]{64}$/);
      for (const [p, v] of Object.entries(l.platforms ?? {})) if (v) expect(v.nodeApi, `${l.duckdb} ${p}`).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    }
    expect(supportedDuckDB()).toEqual(LINES.map(({ duckdb, nodeApi }) => ({ duckdb, nodeApi })));
  });

  it("the README's table of releases is the one rendered from duckdb-lines.json", () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'readme-versions.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const l of LINES) expect(readme).toContain(`| v${l.duckdb} | \`${l.nodeApi}\``);
  });

  it('the dev dependency is a supported release; the peer dependency leaves the check to the package', () => {
    expect(LINES.some((l) => l.nodeApi === pkg.devDependencies['@duckdb/node-api'])).toBe(true);
    // Every @duckdb/node-api version is a prerelease (X.Y.Z-r.N), which no semver range but "*" admits
    // across releases: any narrower range makes npm fail with ERESOLVE next to a newer release instead
    // of the one clear error of the install script and registerVortex. Optional: npm never installs a
    // DuckDB the service did not choose (it would pick the newest, which may have no build).
    expect(pkg.peerDependencies['@duckdb/node-api']).toBe('*');
    expect(pkg.peerDependenciesMeta['@duckdb/node-api']).toEqual({ optional: true });
  });

  it('loads the binary built for the DuckDB in use', () => {
    const addon = loadAddon(version());
    expect(normalizeVersion(addon.duckdbVersion)).toBe(normalizeVersion(version()));
    if (!process.env.VORTEX_ADDON_PATH) {
      expect(addonCandidates(normalizeVersion(version())).some((p) => p.includes(`duckdb-${normalizeVersion(version())}`))).toBe(true);
    }
  });

  it('refuses an unsupported DuckDB with the one error: the version found, every release supported and its node-api, the command that pins one', () => {
    let message = '';
    try {
      findAddon(`v${UNSUPPORTED}`);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`duckdb-vortex does not support the @duckdb/node-api in use (DuckDB v${UNSUPPORTED})`);
    for (const l of LINES) expect(message).toContain(`${l.nodeApi} (v${l.duckdb})`);
    expect(message).toContain(`Pin a supported version in your service, e.g. the nearest: npm install --save-exact @duckdb/node-api@${LATEST.nodeApi} `);
    expect(message).toContain(`DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v${UNSUPPORTED}> npm rebuild duckdb-vortex`);
    // The same text as the install script's (scripts/support.cjs), which also names the package version.
    expect(message).toBe(support.unsupportedMessage({ duckdb: UNSUPPORTED }));
    expect(support.unsupportedMessage({ duckdb: UNSUPPORTED, nodeApi: `${UNSUPPORTED}-r.1` })).toContain(`does not support @duckdb/node-api ${UNSUPPORTED}-r.1 (DuckDB v${UNSUPPORTED})`);
    // The pin: the newest release of the same minor line that published bindings for the platform, else the newest.
    for (const l of LINES) {
      const minor = l.duckdb.split('.').slice(0, 2).join('.');
      for (const platform of ['linux-x64', 'linux-arm64']) {
        const same = LINES.filter((m) => m.duckdb.startsWith(`${minor}.`) && support.nodeApiOf(m, platform));
        if (same.length) expect(support.suggestedPin(`${minor}.99-r.1`, platform)).toBe(support.nodeApiOf(same[same.length - 1], platform));
      }
    }
    expect(support.suggestedPin('99.0.0-r.1')).toBe(LATEST.nodeApi);
  });

  it('no file but scripts/duckdb-lines.json (and the compatibility header) names a DuckDB release', () => {
    // Adding a release changes duckdb-lines.json, and native/duckdb/duckdb_compat.hpp where DuckDB's API
    // moved: scripts, tests, CI and the example read the list. Not scanned: documentation (*.md, which
    // records what was measured on which release), package-lock.json and the dev dependency's value in
    // package.json (which release `npm test` runs on by default; CI runs every line's newest release
    // whatever it is), and the user's seed matrix, copied verbatim.
    const release = /(?<![\d.])1\.(?:[4-9]|\d{2,})\.\d+(?![\d.])/;
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
    const exempt = (f: string) => /\.md$/.test(f) || /(^|\/)(package-lock\.json|duckdb-lines\.json|duckdb_compat\.hpp|seed-matrix\.json)$/.test(f) || f.startsWith('bench/data/');
    const offenders: string[] = [];
    for (const f of tracked.filter((t) => !exempt(t) && existsSync(join(root, t)))) {
      let text = readFileSync(join(root, f), 'utf8');
      if (f === 'package.json') text = text.replace(`"@duckdb/node-api": "${pkg.devDependencies['@duckdb/node-api']}"`, '');
      text.split('\n').forEach((line, i) => {
        if (release.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(tracked.length).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });

  it('a supported DuckDB without a binary here says how to build it', () => {
    const empty = tempDir('vtx-nobin-');
    mkdirSync(join(empty, 'scripts'));
    for (const f of ['duckdb-lines.json', 'support.cjs']) writeFileSync(join(empty, 'scripts', f), readFileSync(join(root, 'scripts', f)));
    expect(() => findAddon(`v${LATEST.duckdb}`, empty)).toThrow(new RegExp(`no native addon for DuckDB v${LATEST.duckdb.replace(/\\./g, '\\.')} on [\\w-]+ in [\\s\\S]*npm rebuild duckdb-vortex --foreground-scripts`));
  });

  it('registerVortex takes the DuckDB version from the connection, and fails with the one error for a release after every supported one', async () => {
    vi.resetModules();
    try {
      const { registerVortex } = await import('../src/index');
      const conn = await (await DuckDBInstance.create(':memory:')).connect();
      // The service's copy of node-api reports an unsupported DuckDB (the connection is all registerVortex looks at).
      const reportsOther = new Proxy(conn, {
        get(target, key, receiver) {
          if (key === 'runAndReadAll') {
            return async (sql: string) => (/version\(\)/.test(sql) ? { getRows: () => [[`v${UNSUPPORTED}`]] } : target.runAndReadAll(sql));
          }
          return Reflect.get(target, key, receiver);
        },
      });
      const err = process.env.VORTEX_ADDON_PATH ? /compiled against DuckDB/ : support.unsupportedMessage({ duckdb: UNSUPPORTED });
      await expect(registerVortex(reportsOther)).rejects.toThrow(err);
      // Nothing was registered.
      expect((await conn.runAndReadAll("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'vortex_scan'")).getRows()[0][0]).toBe(0n);
    } finally {
      vi.resetModules();
    }
  });

  it('keeps every version difference in native/duckdb/duckdb_compat.hpp', () => {
    const offenders: string[] = [];
    const files = readdirSync(join(root, 'native'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(cpp|hpp)$/.test(e.name) && e.name !== 'duckdb_compat.hpp');
    expect(files.length).toBeGreaterThan(40);
    for (const e of files) {
      const text = readFileSync(join(e.parentPath, e.name), 'utf8');
      if (/VORTEX_DUCKDB_VERSION|DUCKDB_(MAJOR|MINOR|PATCH)_VERSION|optimizer_extensions|OptimizerExtension::Register/.test(text)) offenders.push(e.name);
    }
    expect(offenders).toEqual([]);
  });
});
