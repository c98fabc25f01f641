// Memory is bounded and counted: the footer cache is bounded in bytes (vortex_metadata_cache_size)
// and evicts the least recently used footer first; the per-thread reusable buffers are released
// when no scan or COPY is in flight; RSS returns after a large COPY and scan.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDb, rows, scalar, settledRow, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-memory-');
const f = (name: string) => sqlString(join(dir, name));

interface Cached { path: string; bytes: number; zones: number }
async function cached(conn: Awaited<ReturnType<typeof openDb>>['conn']): Promise<Cached[]> {
  return (await rows(conn, 'SELECT path, bytes, zones FROM vortex_cache_info()')).map(([path, bytes, zones]) => ({
    path: String(path).slice(dir.length + 1), bytes: Number(bytes), zones: Number(zones),
  }));
}

describe('the footer cache', () => {
  beforeAll(async () => {
    const { conn } = await openDb();
    for (const name of ['a', 'b', 'c', 'd']) {
      await conn.run(`COPY (SELECT i AS x, 'k' || i AS s FROM range(100) r(i)) TO ${f(`${name}.vtx`)} (FORMAT vortex)`);
    }
    // 400 zones of 2 columns with 60-character string statistics.
    await conn.run(`COPY (SELECT i AS x, repeat('z', 55) || lpad(i::VARCHAR, 5, '0') AS s FROM range(4000) r(i)) TO ${f('many.vtx')} (FORMAT vortex, ROW_GROUP_SIZE 10)`);
    await conn.run(`COPY (SELECT i AS x, repeat('z', 55) || lpad(i::VARCHAR, 5, '0') AS s FROM range(4000) r(i)) TO ${f('some.vtx')} (FORMAT vortex, ROW_GROUP_SIZE 100)`);
  });

  it('is sized by a setting read like memory_limit, 64MiB by default', async () => {
    const { conn } = await openDb();
    expect(await scalar(conn, `SELECT current_setting('vortex_metadata_cache_size')`)).toBe('64MiB');
    await conn.run(`SET vortex_metadata_cache_size = '1MB'`);
    await conn.run(`SET vortex_metadata_cache_size = '2 GiB'`);
    await conn.run(`SET vortex_metadata_cache_size = 5000`);
    await conn.run(`SET GLOBAL vortex_metadata_cache_size = '10KiB'`);
    await expect(conn.run(`SET vortex_metadata_cache_size = 'lots'`)).rejects.toThrow(/vortex_metadata_cache_size/);
    await expect(conn.run(`SET vortex_metadata_cache_size = '12 parsecs'`)).rejects.toThrow(/vortex_metadata_cache_size/);
  });

  it('counts each footer by its size in memory: zones, chunks and statistics strings', async () => {
    const { conn } = await openDb();
    await conn.run(`SELECT * FROM vortex_scan(${f('a.vtx')})`);
    await conn.run(`SELECT * FROM vortex_scan(${f('some.vtx')})`);
    await conn.run(`SELECT * FROM vortex_scan(${f('many.vtx')})`);
    const by = Object.fromEntries((await cached(conn)).map((c) => [c.path, c]));
    expect(by['many.vtx'].zones).toBe(400);
    expect(by['some.vtx'].zones).toBe(40);
    expect(by['a.vtx'].zones).toBe(1);
    // Per zone: 2 chunks with their statistics, and 2 heap strings of 60 characters for the VARCHAR column.
    const perZone = (by['many.vtx'].bytes - by['some.vtx'].bytes) / 360;
    expect(perZone).toBeGreaterThan(2 * 100 + 2 * 61);
    expect(perZone).toBeLessThan(2000);
    expect(by['a.vtx'].bytes).toBeLessThan(by['some.vtx'].bytes);
  });

  it('keeps at most vortex_metadata_cache_size bytes, evicting the least recently used first', async () => {
    const { conn } = await openDb();
    await conn.run(`SELECT * FROM vortex_scan(${f('a.vtx')})`);
    const one = (await cached(conn))[0].bytes;
    await conn.run(`SET vortex_metadata_cache_size = ${Math.floor(one * 2.5)}`);
    for (const name of ['a', 'b', 'a', 'c']) await conn.run(`SELECT * FROM vortex_scan(${f(`${name}.vtx`)})`);
    // b was used less recently than a (first in, but used again): b goes, not a.
    expect((await cached(conn)).map((c) => c.path)).toEqual(['c.vtx', 'a.vtx']);
    await conn.run(`SELECT count(*) FROM vortex_scan(${f('a.vtx')})`); // a pushed count(*) uses the footer too
    await conn.run(`SELECT * FROM vortex_scan(${f('d.vtx')})`);
    expect((await cached(conn)).map((c) => c.path)).toEqual(['d.vtx', 'a.vtx']);
    // A footer larger than the whole cache is not kept, and keeps nothing else out.
    await conn.run(`SELECT * FROM vortex_scan(${f('many.vtx')})`);
    expect((await cached(conn)).map((c) => c.path)).toEqual(['d.vtx', 'a.vtx']);
    // Answers do not depend on what is cached.
    expect(await scalar(conn, `SELECT sum(x) FROM vortex_scan(${f('many.vtx')})`)).toBe(7998000n);
    // A smaller limit applies at the next use; 0 keeps nothing.
    await conn.run(`SET vortex_metadata_cache_size = ${one + 10}`);
    await conn.run(`SELECT * FROM vortex_scan(${f('b.vtx')})`);
    expect((await cached(conn)).map((c) => c.path)).toEqual(['b.vtx']);
    await conn.run(`SET vortex_metadata_cache_size = 0`);
    await conn.run(`SELECT * FROM vortex_scan(${f('c.vtx')})`);
    expect(await cached(conn)).toEqual([]);
    const total = (await cached(conn)).reduce((s, c) => s + c.bytes, 0);
    expect(total).toBe(0);
  });

  it('a database cache is its own: another database does not see or evict its footers', async () => {
    const one = await openDb();
    const two = await openDb();
    await one.conn.run(`SELECT * FROM vortex_scan(${f('a.vtx')})`);
    await two.conn.run(`SET vortex_metadata_cache_size = 0`);
    await two.conn.run(`SELECT * FROM vortex_scan(${f('b.vtx')})`);
    expect((await cached(one.conn)).map((c) => c.path)).toEqual(['a.vtx']);
    expect(await cached(two.conn)).toEqual([]);
  });

  it('vortex_cache_info lists paths: refused when enable_external_access is false', async () => {
    const { conn } = await openDb();
    await conn.run(`SELECT * FROM vortex_scan(${f('a.vtx')})`);
    await conn.run('SET enable_external_access = false');
    await expect(conn.run('SELECT * FROM vortex_cache_info()')).rejects.toThrow(/enable_external_access/);
  });
});

describe('per-thread buffers', () => {
  // DuckDB hands a query's result back before its worker threads have dropped their finished
  // tasks, and with them the scan's per-thread state: the last source can close some
  // milliseconds later (seen up to 30 ms, in about one run of six). So "released" is checked
  // as "released within five seconds", not at the instant the result arrives.
  // The cached blocks (native/format/buffer_memory.hpp) are freed a second after the last operation ends.
  async function settled(conn: Awaited<ReturnType<typeof openDb>>['conn']): Promise<unknown[][]> {
    const sql = 'SELECT idle_thread_bytes, operations_in_flight, cached_buffer_bytes FROM vortex_buffer_info()';
    return [await settledRow(conn, sql, (row) => row.every((v) => v === 0n))];
  }

  it('are released when no scan or COPY is in flight, however large the zone', async () => {
    const { conn } = await openDb();
    await conn.run('SET threads = 2');
    // Zones of 2M rows: tens of MiB of zone, encoding and decompression buffers per thread.
    await conn.run(`COPY (SELECT i AS x, md5(i::VARCHAR) AS s, (i * 0.5)::DOUBLE AS d FROM range(4000000) r(i)) TO ${f('big.vtx')} (FORMAT vortex, ROW_GROUP_SIZE 2000000, COMPRESSION zstd)`);
    expect(await settled(conn)).toEqual([[0n, 0n, 0n]]);
    expect(await rows(conn, `SELECT count(*), sum(x + 1), max(length(s)), sum(d) FROM vortex_scan(${f('big.vtx')})`))
      .toEqual([[4000000n, 7999998000000n + 4000000n, 32n, 3999999000000]]);
    expect(await settled(conn)).toEqual([[0n, 0n, 0n]]);
  });

  it('decoded blocks are kept for the next query while queries follow each other', async () => {
    const { conn } = await openDb();
    await conn.run('SET threads = 2');
    await conn.run(`COPY (SELECT i AS x, (i * 0.5)::DOUBLE AS d FROM range(2000000) r(i)) TO ${f('kept.vtx')} (FORMAT vortex)`);
    await conn.run('SET vortex_pushdown = false'); // decoded, not answered from statistics
    const scan = `SELECT sum(x + 1), sum(d) FROM vortex_scan(${f('kept.vtx')})`;
    expect(await rows(conn, scan)).toEqual([[1999999000000n + 2000000n, 999999500000]]);
    // Asked at once, before the delay: the blocks of the scan are held (the next query reuses them).
    const [[held]] = await rows(conn, 'SELECT cached_buffer_bytes FROM vortex_buffer_info()');
    expect(held as bigint).toBeGreaterThan(0n);
    expect(await settled(conn)).toEqual([[0n, 0n, 0n]]);
  });
});

describe('RSS after a large COPY and scan', () => {
  // What this code holds is checked exactly (no idle thread buffers, a small C heap); RSS itself
  // also moves with DuckDB's own allocator (jemalloc), which keeps up to about 60 MiB of freed
  // pages in some runs and not in others (docs/RELIABILITY.md), so it gets a looser bound here.
  // Under scripts/asan-test.sh, AddressSanitizer's allocator keeps freed memory in quarantine:
  // RSS cannot come back there by design, so this one measurement is skipped.
  const underAsan = (process.env.LD_PRELOAD ?? '').includes('libasan');
  // Three scans: from the second, decompressed segments are kept (segment_cache.hpp), and when
  // they are let go their blocks must not stay behind in the buffer cache.
  it.skipIf(underAsan)('returns (scripts/memory-return.mjs, 8M rows in zones of 1M, scanned three times)', () => {
    const r = spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'memory-return.mjs'), '--rows', '8000000', '--row-group-size', '1000000', '--scans', '3', '--json', '--dir', dir], {
      encoding: 'utf8', timeout: 300_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      beforeMiB: number; peakMiB: number; afterMiB: number; idleThreadBufferBytes: number; cHeapInUseMiB: number | null;
      cachedBufferBytes: number | null; cachedSegmentBytes: number | null;
    };
    console.log(`memory-return (8M rows): ${JSON.stringify(m)}`);
    expect(m.peakMiB - m.beforeMiB).toBeGreaterThan(200); // the run did use memory
    expect(m.idleThreadBufferBytes).toBe(0);
    expect(m.cachedBufferBytes).toBe(0);
    expect(m.cachedSegmentBytes).toBe(0);
    if (m.cHeapInUseMiB !== null) expect(m.cHeapInUseMiB).toBeLessThan(32);
    expect(m.afterMiB - m.beforeMiB).toBeLessThan(128);
  });
});
