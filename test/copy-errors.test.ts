// COPY ... (FORMAT vortex) on its error paths: the temporary file is created exclusively under
// an unguessable name, removed when the COPY fails, and the directory entry of the rename is
// synced; where DuckDB's access settings admit only the target, the COPY writes in place.
//   VORTEX_TEST_FAULT=copy_after_create   (test hook) fail the COPY just after its temporary file is created
//   VORTEX_TEST_TEMP_SUFFIX=<hex>         (test hook) use this temporary name instead of a random one
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, rows, sqlString, tempDir } from './helpers';
import { viteNodeArgs, workerDir } from './workers/spawn';

const dir = tempDir('vtx-copy-errors-');

afterEach(() => {
  delete process.env.VORTEX_TEST_FAULT;
  delete process.env.VORTEX_TEST_TEMP_SUFFIX;
});

async function message(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('COPY error paths', () => {
  it('removes its temporary file when the COPY fails after creating it', async () => {
    const { conn } = await openDb();
    const sub = join(dir, 'fail-init');
    mkdirSync(sub);
    const target = join(sub, 't.vtx');
    await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(target)} (FORMAT vortex)`);
    const old = readFileSync(target);
    for (const extra of ['', ', USE_TMP_FILE false']) {
      process.env.VORTEX_TEST_FAULT = 'copy_after_create';
      const msg = await message(conn.run(`COPY (SELECT 2 AS x) TO ${sqlString(target)} (FORMAT vortex${extra})`));
      delete process.env.VORTEX_TEST_FAULT;
      expect(msg).toMatch(/injected failure/);
      expect(readdirSync(sub)).toEqual(['t.vtx']);
      expect(readFileSync(target).equals(old)).toBe(true);
    }
    // To a new file: nothing is left at all.
    process.env.VORTEX_TEST_FAULT = 'copy_after_create';
    expect(await message(conn.run(`COPY (SELECT 2 AS x) TO ${sqlString(join(sub, 'new.vtx'))} (FORMAT vortex)`))).toMatch(/injected failure/);
    delete process.env.VORTEX_TEST_FAULT;
    expect(readdirSync(sub)).toEqual(['t.vtx']);
  });

  it('creates its temporary file exclusively: a file or symlink already there is neither followed nor removed', async () => {
    const { conn } = await openDb();
    const sub = join(dir, 'exclusive');
    mkdirSync(sub);
    const target = join(sub, 't.vtx');
    const victim = join(sub, 'victim.txt');
    writeFileSync(victim, 'precious');
    const suffix = '0123456789abcdef';
    symlinkSync(victim, `${target}.tmp-${suffix}`);
    process.env.VORTEX_TEST_TEMP_SUFFIX = suffix;
    const msg = await message(conn.run(`COPY (SELECT 2 AS x) TO ${sqlString(target)} (FORMAT vortex)`));
    delete process.env.VORTEX_TEST_TEMP_SUFFIX;
    expect(msg).toMatch(/cannot create a temporary file next to .* exists/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(`${target}.tmp-${suffix}`).isSymbolicLink()).toBe(true);
    expect(existsSync(target)).toBe(false);
    // Without the fixed name the next COPY picks a fresh one and succeeds.
    await conn.run(`COPY (SELECT 3 AS x) TO ${sqlString(target)} (FORMAT vortex)`);
    expect(await rows(conn, `SELECT x FROM vortex_scan(${sqlString(target)})`)).toEqual([[3]]);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('writes "<target>.tmp-<16 hex digits>" with O_EXCL, renames it, then fsyncs the directory', () => {
    const probe = spawnSync('strace', ['-V'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      console.log('strace not available: skipped');
      return;
    }
    const sub = join(dir, 'strace');
    mkdirSync(sub);
    const target = join(sub, 't.vtx');
    const log = join(dir, 'strace.log');
    const r = spawnSync('strace', ['-f', '-qq', '-y', '-o', log, '-e', 'trace=openat,open,rename,renameat,renameat2,fsync,fdatasync',
      process.execPath, ...viteNodeArgs(), join(workerDir, 'copy-worker.ts'), '--', target, '1000', '1'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(log, 'utf8').split('\n');
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const create = lines.findIndex((l) => new RegExp(`openat\\(.*"${esc(target)}\\.tmp-[0-9a-f]{16}".*O_CREAT.*O_EXCL`).test(l) || new RegExp(`openat\\(.*"${esc(target)}\\.tmp-[0-9a-f]{16}".*O_EXCL.*O_CREAT`).test(l));
    expect(create, lines.filter((l) => l.includes('.tmp-')).join('\n')).toBeGreaterThanOrEqual(0);
    const rename = lines.findIndex((l) => /rename/.test(l) && l.includes(`${target}.tmp-`) && l.includes(`"${target}"`));
    expect(rename).toBeGreaterThan(create);
    const dirSync = lines.findIndex((l, i) => i > rename && new RegExp(`f(data)?sync\\(\\d+<${esc(sub)}>\\) = 0`).test(l));
    expect(dirSync, lines.slice(rename).join('\n')).toBeGreaterThan(rename);
  });

  it('writes in place where DuckDB admits the target but not a file next to it (allowed_paths)', async () => {
    const { conn } = await openDb();
    const sub = join(dir, 'in-place');
    mkdirSync(sub);
    const target = join(sub, 't.vtx');
    await conn.run(`SET allowed_paths = [${sqlString(target)}]`);
    await conn.run('SET enable_external_access = false');
    await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(target)} (FORMAT vortex)`);
    await conn.run(`COPY (SELECT 2 AS x) TO ${sqlString(target)} (FORMAT vortex, USE_TMP_FILE false)`);
    expect(await rows(conn, `SELECT x FROM vortex_scan(${sqlString(target)})`)).toEqual([[2]]);
    expect(readdirSync(sub)).toEqual(['t.vtx']);
    // A failed in-place COPY cannot keep the old file: it removes the partial one.
    process.env.VORTEX_TEST_FAULT = 'copy_after_create';
    expect(await message(conn.run(`COPY (SELECT 3 AS x) TO ${sqlString(target)} (FORMAT vortex, USE_TMP_FILE false)`))).toMatch(/injected failure/);
    expect(readdirSync(sub)).toEqual([]);
  });
});
