import { DuckDBInstance, version } from '@duckdb/node-api';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { addonCandidates, findAddon, loadAddon, supportedDuckDB } from '../src/native';
import { normalizeVersion } from '../src/version';
import { tempDir } from './helpers';

// Two DuckDB lines from one source tree: scripts/duckdb-lines.json lists them, the loader picks
// the binary built for the DuckDB that @duckdb/node-api reports, and refuses any other.
const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('DuckDB versions', () => {
  it('supports exactly 1.4.4 and 1.5.5; the peer dependency leaves the check to the package', () => {
    const lines = supportedDuckDB();
    expect(lines).toEqual([{ duckdb: '1.4.4', nodeApi: '1.4.4-r.4' }, { duckdb: '1.5.5', nodeApi: '1.5.5-r.5' }]);
    expect(pkg.devDependencies['@duckdb/node-api']).toBe(lines[0].nodeApi);
    // Every @duckdb/node-api version is a prerelease (1.5.5-r.5), which no semver range but "*" admits
    // across releases: any narrower range makes npm fail with ERESOLVE next to 1.5.6 instead of the
    // one clear error of the install script and registerVortex. Optional: npm never installs a DuckDB
    // the service did not choose (it would pick the newest, which may have no build).
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

  it('refuses an unsupported DuckDB with the one error: the version found, those supported, the command that pins one', () => {
    let message = '';
    try {
      findAddon('v1.5.6');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('duckdb-vortex does not support the @duckdb/node-api in use (DuckDB v1.5.6)');
    expect(message).toContain('Supported: @duckdb/node-api 1.4.4-r.4 (DuckDB v1.4.4), @duckdb/node-api 1.5.5-r.5 (DuckDB v1.5.5)');
    expect(message).toContain('Pin a supported version in your service: npm install @duckdb/node-api@1.5.5-r.5 ');
    expect(message).toMatch(/DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v1\.5\.6> npm rebuild duckdb-vortex/);
    // The same text as the install script's (scripts/support.cjs), which also names the package version.
    const support = createRequire(join(root, 'package.json'))('./scripts/support.cjs') as {
      unsupportedMessage(v: { duckdb: string; nodeApi?: string }): string;
      suggestedPin(v: string, platform?: string): string;
    };
    expect(message).toBe(support.unsupportedMessage({ duckdb: '1.5.6' }));
    expect(support.unsupportedMessage({ duckdb: '1.5.6', nodeApi: '1.5.6-r.1' })).toContain('does not support @duckdb/node-api 1.5.6-r.1 (DuckDB v1.5.6)');
    expect(support.suggestedPin('1.4.3-r.2', 'linux-x64')).toBe('1.4.4-r.4');
    expect(support.suggestedPin('1.4.3-r.2', 'linux-arm64')).toBe('1.4.4-r.3'); // r.4 published no arm64 bindings
    expect(support.suggestedPin('2.0.0-r.1')).toBe('1.5.5-r.5');
  });

  it('a supported DuckDB without a binary here says how to build it', () => {
    const empty = tempDir('vtx-nobin-');
    mkdirSync(join(empty, 'scripts'));
    for (const f of ['duckdb-lines.json', 'support.cjs']) writeFileSync(join(empty, 'scripts', f), readFileSync(join(root, 'scripts', f)));
    expect(() => findAddon('v1.5.5', empty)).toThrow(/no native addon for DuckDB v1\.5\.5 on [\w-]+ in [\s\S]*npm rebuild duckdb-vortex --foreground-scripts/);
  });

  it('registerVortex takes the DuckDB version from the connection, and fails with the one error for 1.5.6', async () => {
    vi.resetModules();
    try {
      const { registerVortex } = await import('../src/index');
      const conn = await (await DuckDBInstance.create(':memory:')).connect();
      // The service's copy of node-api reports DuckDB v1.5.6 (the connection is all registerVortex looks at).
      const reports156 = new Proxy(conn, {
        get(target, key, receiver) {
          if (key === 'runAndReadAll') {
            return async (sql: string) => (/version\(\)/.test(sql) ? { getRows: () => [['v1.5.6']] } : target.runAndReadAll(sql));
          }
          return Reflect.get(target, key, receiver);
        },
      });
      const err = process.env.VORTEX_ADDON_PATH ? /compiled against DuckDB/ : /does not support the @duckdb\/node-api in use \(DuckDB v1\.5\.6\)[\s\S]*npm install @duckdb\/node-api@1\.5\.5-r\.5/;
      await expect(registerVortex(reports156)).rejects.toThrow(err);
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
