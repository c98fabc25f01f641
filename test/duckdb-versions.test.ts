import { version } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  it('supports exactly 1.4.4 and 1.5.5, as the peer dependency admits', () => {
    const lines = supportedDuckDB();
    expect(lines).toEqual([{ duckdb: '1.4.4', nodeApi: '1.4.4-r.4' }, { duckdb: '1.5.5', nodeApi: '1.5.5-r.5' }]);
    expect(pkg.devDependencies['@duckdb/node-api']).toBe(lines[0].nodeApi);
    const semver = createRequire(join(root, 'package.json'))('semver');
    const range = pkg.peerDependencies['@duckdb/node-api'];
    for (const v of ['1.4.4-r.4', '1.4.4-r.5', '1.5.5-r.5', '1.5.5-r.6']) expect(semver.satisfies(v, range), v).toBe(true);
    for (const v of ['1.4.4-r.3', '1.5.5-r.4', '1.5.6-r.1', '1.5.4-r.1', '1.6.0-r.1', '1.4.3-r.2']) expect(semver.satisfies(v, range), v).toBe(false);
  });

  it('loads the binary built for the DuckDB in use', () => {
    const addon = loadAddon();
    expect(normalizeVersion(addon.duckdbVersion)).toBe(normalizeVersion(version()));
    if (!process.env.VORTEX_ADDON_PATH) {
      expect(addonCandidates(normalizeVersion(version())).some((p) => p.includes(`duckdb-${normalizeVersion(version())}`))).toBe(true);
    }
  });

  it('refuses an unsupported DuckDB, naming the version found, those supported and how to build', () => {
    let message = '';
    try {
      findAddon('v1.5.6');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('no native addon for DuckDB v1.5.6');
    expect(message).toContain('@duckdb/node-api 1.4.4-r.4 (DuckDB v1.4.4)');
    expect(message).toContain('@duckdb/node-api 1.5.5-r.5 (DuckDB v1.5.5)');
    expect(message).toMatch(/DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v1\.5\.6> npm rebuild duckdb-vortex/);
    expect(message).toContain('npm run build:native');
  });

  it('registerVortex fails with that message when version() reports 1.5.6', async () => {
    vi.resetModules();
    vi.doMock('@duckdb/node-api', async (importOriginal) => ({
      ...(await importOriginal<typeof import('@duckdb/node-api')>()),
      version: () => 'v1.5.6',
    }));
    try {
      const api = await import('@duckdb/node-api');
      expect(api.version()).toBe('v1.5.6');
      const { registerVortex } = await import('../src/index');
      const conn = await (await api.DuckDBInstance.create(':memory:')).connect();
      const err = process.env.VORTEX_ADDON_PATH ? /compiled against DuckDB/ : /no native addon for DuckDB v1\.5\.6[\s\S]*1\.4\.4-r\.4[\s\S]*1\.5\.5-r\.5[\s\S]*npm rebuild/;
      await expect(registerVortex(conn)).rejects.toThrow(err);
    } finally {
      vi.doUnmock('@duckdb/node-api');
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

describe('DuckDB 1.5 headers for the build', () => {
  const headers = (env: Record<string, string>) =>
    spawnSync(process.execPath, [join(root, 'scripts', 'duckdb-headers.mjs')], {
      cwd: root, encoding: 'utf8', env: { ...process.env, DUCKDB_VORTEX_NODE_API: '1.5.5-r.5', ...env },
    });
  const dir = tempDir('vtx-headers-');

  it('says where to get them when DUCKDB_VORTEX_HEADERS names nothing', () => {
    const r = headers({ DUCKDB_VORTEX_HEADERS: join(dir, 'missing') });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DuckDB 1\.5\.5's C\+\+ headers are needed[\s\S]*DuckDB's source at the matching tag[\s\S]*--branch v1\.5\.5/);
  });

  it('refuses a tarball that does not match the pinned sha256', () => {
    const bogus = join(dir, 'duckdb-1.5.5-headers.tar.gz');
    writeFileSync(bogus, 'not the headers');
    const r = headers({ DUCKDB_VORTEX_HEADERS: bogus });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/failed verification: expected sha256 0659172e834bae9196e75102be86a648a9c38b1053a4df94837620ccd324ac54/);
  });
});
