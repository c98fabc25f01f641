// Memory is bounded and counted: the per-thread reusable buffers are released when no scan or
// COPY is in flight; RSS returns after a large COPY and scan.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, rows, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-memory-');
const f = (name: string) => sqlString(join(dir, name));

describe('per-thread buffers', () => {
  it('are released when no scan or COPY is in flight, however large the zone', async () => {
    const { conn } = await openDb();
    await conn.run('SET threads = 2');
    // Zones of 2M rows: tens of MiB of zone, encoding and decompression buffers per thread.
    await conn.run(`COPY (SELECT i AS x, md5(i::VARCHAR) AS s, (i * 0.5)::DOUBLE AS d FROM range(4000000) r(i)) TO ${f('big.vtx')} (FORMAT vortex, ROW_GROUP_SIZE 2000000, COMPRESSION zstd)`);
    expect(await rows(conn, 'SELECT idle_thread_bytes, operations_in_flight FROM vortex_buffer_info()')).toEqual([[0n, 0n]]);
    expect(await rows(conn, `SELECT count(*), sum(x + 1), max(length(s)), sum(d) FROM vortex_scan(${f('big.vtx')})`))
      .toEqual([[4000000n, 7999998000000n + 4000000n, 32n, 3999999000000]]);
    expect(await rows(conn, 'SELECT idle_thread_bytes, operations_in_flight FROM vortex_buffer_info()')).toEqual([[0n, 0n]]);
  });
});

describe('RSS after a large COPY and scan', () => {
  it('returns to within 64 MiB of where it was (scripts/memory-return.mjs, 8M rows in zones of 1M)', () => {
    const r = spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'memory-return.mjs'), '--rows', '8000000', '--row-group-size', '1000000', '--json', '--dir', dir], {
      encoding: 'utf8', timeout: 300_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as { beforeMiB: number; peakMiB: number; afterMiB: number };
    console.log(`memory-return (8M rows): ${JSON.stringify(m)}`);
    expect(m.peakMiB - m.beforeMiB).toBeGreaterThan(64); // the run did use memory
    expect(m.afterMiB - m.beforeMiB).toBeLessThan(64);
  });
});
