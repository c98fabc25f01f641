// .vtx and Parquet on a simulated object store (native/duckdb/io/sim_store.hpp, issue 58): local
// files served under simstore:// as httpfs serves S3 (remote, every read a range GET, a glob one
// LIST with sizes and ETags, an open without them a HEAD), counting requests. The counts asserted
// here are what the reader does today, beside DuckDB's Parquet reader on the same data; where
// .vtx needs more requests than Parquet, a comment says what issue 58 asks for, so that improving
// the reader means lowering the expected number. Then faults: a failed GET, a short GET and an
// object that changes in the middle of a query give an error naming the file, never a wrong
// answer or a crash.
import { DuckDBConnection, DuckDBInstance, version } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerVortex } from '../src/index';
import { connectionHandle } from '../src/connection';
import { loadAddon } from '../src/native';
import { rows, sqlString, tempDir } from './helpers';

interface Counts {
  head: number;
  get: number;
  list: number;
  bytes: number;
}
interface Fault {
  kind: 'fail' | 'short' | 'change';
  after?: number;
  object?: string;
  replacement?: string;
  checkEtag?: boolean;
}
interface SimStoreHooks {
  enableSimStore(connection: unknown, options?: { latencyMs?: number; bandwidthMBps?: number }): void;
  simStoreStats(connection: unknown): Counts;
  resetSimStore(connection: unknown): void;
  simStoreFault(connection: unknown, fault: Fault): void;
}
const hooks = (loadAddon(version()) as unknown as { __test: SimStoreHooks }).__test;
const native = (conn: DuckDBConnection) => connectionHandle(conn, 'remote-store test');
/** Set to print every measured count (to update the expectations below). */
const PRINT = process.env.VORTEX_PRINT_COUNTS === '1';

const dir = tempDir('vtx-simstore-');
const ROWS = 500_000; // about 4 zones (row groups) of 122,880 rows
const FILES = 20;
const data = (shift: number) =>
  `SELECT i AS id, i % 7 AS g, (i * 37 + ${shift}) % 1000 AS x, 'k' || (i % 13) AS s FROM range(${ROWS}) r(i)`;
const url = (path: string) => sqlString(`simstore://${path}`);

/**
 * A fresh database (so nothing is cached: "cold"), two threads (the counts depend on how the scan
 * is split), the simulated store enabled. The segment cache is off: it keeps a file's decompressed
 * segments for a second after the last scan ends, in the process, so the counts would depend on
 * timing and on the tests before.
 */
async function storeDb(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await instance.connect();
  await registerVortex(conn);
  hooks.enableSimStore(native(conn));
  await conn.run('SET vortex_segment_cache = false');
  return conn;
}

/** Runs each query in turn on one fresh database: the counts and the answer of each. */
async function measure(sqls: string[]): Promise<Array<{ counts: Counts; answer: unknown[][] }>> {
  const conn = await storeDb();
  const out = [];
  for (const sql of sqls) {
    hooks.resetSimStore(native(conn));
    const answer = await rows(conn, sql);
    out.push({ counts: hooks.simStoreStats(native(conn)), answer });
  }
  return out;
}

/** A count, or the range it lies in where it depends on how the threads meet. */
type Count = number | readonly [min: number, max: number];
interface Requests {
  head: Count;
  get: Count;
  list: Count;
}
const req = (head: Count, get: Count, list: Count): Requests => ({ head, get, list });
/** The measured requests, each shown as its expected range where it lies within it. */
function requests(c: Counts, expected: Requests): Requests {
  const fit = (n: number, e: Count): Count => (typeof e !== 'number' && n >= e[0] && n <= e[1] ? e : n);
  return { head: fit(c.head, expected.head), get: fit(c.get, expected.get), list: fit(c.list, expected.list) };
}

// The queries, each with {} for the file or glob and the scan function.
const vtxFile = () => url(join(dir, 't.vtx'));
const parquetFile = () => url(join(dir, 't.parquet'));
const QUERIES = {
  // Opening the file: answered from the footer (.vtx) or the row groups' counts (Parquet).
  open: 'SELECT count(*) FROM {scan}({file})',
  // Every column of every row.
  fullScan: 'SELECT sum(id + g + x + length(s)) FROM {scan}({file})',
  // A range of 101 ids: one zone (row group) of four holds them.
  filtered: 'SELECT sum(x), count(*) FROM {scan}({file}) WHERE id BETWEEN 300000 AND 300100',
  // count(*) over a hive dataset of 20 files, with a glob.
  manyFiles: 'SELECT count(*) FROM {scan}({glob})',
  // A grouped sum over the same 20 files, by their partition key.
  manyGrouped: 'SELECT p, sum(x) FROM {scan}({glob}, hive_partitioning = true) GROUP BY p ORDER BY p',
} as const;
type Query = keyof typeof QUERIES;
const sqlOf = (q: Query, format: 'vtx' | 'parquet') =>
  QUERIES[q]
    .replace('{scan}', format === 'vtx' ? 'vortex_scan' : 'read_parquet')
    .replace('{file}', format === 'vtx' ? vtxFile() : parquetFile())
    .replace('{glob}', url(join(dir, 'hive', `**/*.${format}`)));

/**
 * What each query costs today, cold (a fresh database) and warm (the same query again on it),
 * with two threads (the same on DuckDB 1.4 and 1.5 but where a range says otherwise).
 */
const EXPECTED: Record<Query, Record<'vtx' | 'parquet', { cold: Requests; warm: Requests }>> = {
  open: {
    // Issue 58: an open costs a HEAD (the reader passes only the path to OpenFile) and a 64 KiB
    // tail read; warm, the HEAD and a 12-byte trailer read again (to validate the metadata
    // cache). Wanted: warm 0 GETs, validated by ETag and size from one HEAD at most.
    vtx: { cold: req(1, 1, 0), warm: req(1, 1, 0) },
    parquet: { cold: req(1, 1, 0), warm: req(1, 0, 0) },
  },
  fullScan: {
    // Issue 58: 21 GETs, one per segment read (the handle is opened with FILE_FLAGS_PARALLEL_ACCESS,
    // so nothing is buffered or coalesced), against Parquet's 6 (a row group's columns in one
    // request); warm, all 21 again against Parquet's 0 (its ranges stay in DuckDB's external file
    // cache). Wanted: nearby segments coalesced into one request, and warm 0 GETs.
    vtx: { cold: req(1, 21, 0), warm: req(1, 21, 0) },
    // Parquet's bind opens the file, and each scan thread that gets a row group opens it again.
    // DuckDB 1.4 reads the four row groups in 6 GETs, 1.5 in 5.
    parquet: { cold: req([2, 3], [5, 6], 0), warm: req([2, 3], 0, 0) },
  },
  filtered: {
    // Issue 58: the same GETs again warm (Parquet: 0). Wanted: warm 0.
    vtx: { cold: req(1, 3, 0), warm: req(1, 3, 0) },
    parquet: { cold: req([2, 3], 3, 0), warm: req([2, 3], 0, 0) },
  },
  manyFiles: {
    // No HEAD: the glob's listing (size, ETag, last-modified) goes with each path to OpenFile, as
    // read_parquet passes it. Issue 58: a tail read per file, and warm a 12-byte trailer read per
    // file again. Wanted: warm no GET (0) where the footers are cached.
    vtx: { cold: req(0, 20, 1), warm: req(0, 20, 1) },
    parquet: { cold: req(0, 20, 1), warm: req(0, 0, 1) },
  },
  manyGrouped: {
    // Answered from the files' statistics (pushed): what counts is opening them, as above.
    vtx: { cold: req(0, 20, 1), warm: req(0, 20, 1) },
    parquet: { cold: req(0, 20, 1), warm: req(0, 0, 1) },
  },
};

beforeAll(async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await registerVortex(conn);
  for (const [name, shift] of [['t', 0], ['u', 1]] as const) {
    await conn.run(`COPY (${data(shift)}) TO ${sqlString(join(dir, `${name}.vtx`))} (FORMAT vortex)`);
    await conn.run(`COPY (${data(shift)}) TO ${sqlString(join(dir, `${name}.parquet`))} (FORMAT parquet)`);
  }
  for (let p = 0; p < FILES; p++) {
    mkdirSync(join(dir, 'hive', `p=${p}`), { recursive: true });
    const part = `SELECT i AS id, i % 5 AS x FROM range(${p * 1000}, ${(p + 1) * 1000}) r(i)`;
    for (const format of ['vtx', 'parquet']) {
      await conn.run(`COPY (${part}) TO ${sqlString(join(dir, 'hive', `p=${p}`, `f.${format}`))} (FORMAT ${format === 'vtx' ? 'vortex' : 'parquet'})`);
    }
  }
});

describe('request counts on the simulated object store', () => {
  it.each(Object.keys(QUERIES) as Query[])('%s: .vtx and Parquet, cold and warm', async (q) => {
    const measured = {} as Record<'vtx' | 'parquet', { cold: Counts; warm: Counts }>;
    const answers: Record<string, unknown[][]> = {};
    for (const format of ['vtx', 'parquet'] as const) {
      const [cold, warm] = await measure([sqlOf(q, format), sqlOf(q, format)]);
      measured[format] = { cold: cold.counts, warm: warm.counts };
      expect(warm.answer).toEqual(cold.answer);
      answers[format] = cold.answer;
    }
    if (PRINT) console.log(q, JSON.stringify(measured));
    expect(answers.vtx).toEqual(answers.parquet);
    for (const format of ['vtx', 'parquet'] as const) {
      const expected = EXPECTED[q][format];
      const cold = requests(measured[format].cold, expected.cold);
      const warm = requests(measured[format].warm, expected.warm);
      expect({ format, cold, warm }).toEqual({ format, ...expected });
    }
  });
});

describe('the simulated store', () => {
  it('answers as the local files do, for .vtx and Parquet', async () => {
    const conn = await storeDb();
    for (const q of Object.keys(QUERIES) as Query[]) {
      for (const format of ['vtx', 'parquet'] as const) {
        const remote = sqlOf(q, format);
        const local = remote.replace(/'simstore:\/\//g, "'");
        expect(await rows(conn, remote), `${q} ${format}`).toEqual(await rows(conn, local));
      }
    }
    const all = (file: string) => `SELECT * FROM vortex_scan(${file}) ORDER BY id`;
    expect(await rows(conn, all(vtxFile()))).toEqual(await rows(conn, all(sqlString(join(dir, 't.vtx')))));
  });

  it('lists a glob once, with each file\'s size and ETag, and costs a HEAD only where an open has none', async () => {
    const conn = await storeDb();
    const h = native(conn);
    await rows(conn, `SELECT count(*) FROM glob(${url(join(dir, 'hive', '**', '*.vtx'))})`);
    expect(hooks.simStoreStats(h)).toEqual({ head: 0, get: 0, list: 1, bytes: 0 });
    hooks.resetSimStore(h);
    // DuckDB's read_blob opens the file from the glob's listing: no HEAD.
    await rows(conn, `SELECT size FROM read_blob(${url(join(dir, 'hive', 'p=1', '*.vtx'))})`);
    expect(hooks.simStoreStats(h).head).toBe(0);
  });

  it('sleeps its latency per request and its bandwidth per stream', async () => {
    const conn = await storeDb();
    const h = native(conn);
    hooks.enableSimStore(h, { latencyMs: 25, bandwidthMBps: 1 });
    const start = performance.now();
    await rows(conn, `SELECT count(*) FROM vortex_scan(${vtxFile()})`); // a HEAD and a 64 KiB GET
    const ms = performance.now() - start;
    const { head, get, bytes } = hooks.simStoreStats(h);
    expect(ms).toBeGreaterThanOrEqual((head + get) * 25 + bytes / 1000 - 5);
    hooks.enableSimStore(h, { latencyMs: 0, bandwidthMBps: 0 });
  });

  it('is read-only, says so, and names a missing object', async () => {
    const conn = await storeDb();
    await expect(conn.run(`COPY (SELECT 1 AS a) TO ${url(join(dir, 'w.vtx'))} (FORMAT vortex)`)).rejects.toThrow(
      /simstore: cannot write .*w\.vtx.*read-only/,
    );
    await expect(conn.run(`COPY (SELECT 1 AS a) TO ${url(join(dir, 'w.parquet'))} (FORMAT parquet)`)).rejects.toThrow(/read-only/);
    await expect(rows(conn, `SELECT * FROM vortex_scan(${url(join(dir, 'none.vtx'))})`)).rejects.toThrow(/none\.vtx.*404|404.*none\.vtx/);
  });

  it('is off unless enabled', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    await expect(rows(conn, `SELECT count(*) FROM vortex_scan(${vtxFile()})`)).rejects.toThrow();
    expect(() => hooks.simStoreStats(native(conn))).toThrow(/not enabled/);
  });
});

describe('faults on the simulated store', () => {
  const KINDS: Array<[label: string, fault: (after: number, object?: string) => Fault]> = [
    ['a failed GET', (after, object) => ({ kind: 'fail', after, object })],
    ['a short GET', (after, object) => ({ kind: 'short', after, object })],
    ['a changed file (httpfs checks the ETag)', (after, object) => ({ kind: 'change', after, object, replacement: join(dir, 'u.vtx') })],
    ['a changed file (no ETag check)', (after, object) => ({ kind: 'change', after, object, replacement: join(dir, 'u.vtx'), checkEtag: false })],
  ];
  const sweep = ['fullScan', 'filtered'] as const;

  /** Runs `sql` with the fault armed: its answer, or the error's message. */
  async function withFault(sql: string, fault: Fault): Promise<{ answer?: unknown[][]; error?: string }> {
    const conn = await storeDb();
    hooks.simStoreFault(native(conn), fault);
    try {
      return { answer: await rows(conn, sql) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }

  it.each(sweep.flatMap((q) => KINDS.map(([label]) => [q, label] as const)))(
    '%s, %s at every GET: an error naming the file, or a right answer',
    async (q, label) => {
      const fault = KINDS.find(([l]) => l === label)![1];
      const sql = sqlOf(q, 'vtx');
      const [{ counts, answer: old }] = await measure([sql]);
      const conn = await storeDb();
      const fresh = await rows(conn, sql.replace('t.vtx', 'u.vtx'));
      let errors = 0;
      for (let after = 0; after <= counts.get; after++) {
        const { answer, error } = await withFault(sql, fault(after));
        if (error !== undefined) {
          errors++;
          expect(error, `fault after ${after} GETs`).toContain(`simstore://${join(dir, 't.vtx')}`);
        } else if (label.startsWith('a changed')) {
          // The file as it was or as it is, never a mix of the two.
          expect([old, fresh], `fault after ${after} GETs`).toContainEqual(answer);
        } else {
          expect(answer, `fault after ${after} GETs`).toEqual(old);
        }
      }
      // Every GET the query makes fails it, where the fault is not silent.
      if (label === 'a failed GET') expect(errors).toBe(counts.get);
      else if (label !== 'a changed file (no ETag check)') expect(errors).toBeGreaterThan(0);
    },
  );

  it.each(KINDS.map(([label]) => label))('one file of 20 with %s: an error naming it, or a right answer', async (label) => {
    const fault = KINDS.find(([l]) => l === label)![1];
    const victim = join(dir, 'hive', 'p=7', 'f.vtx');
    const queries = [sqlOf('manyGrouped', 'vtx'), sqlOf('manyGrouped', 'vtx').replace('sum(x)', 'sum(id + x)').replace('GROUP BY p', 'WHERE id % 3 = 0 GROUP BY p')];
    for (const sql of queries) {
      const [{ answer: old }] = await measure([sql]);
      for (let after = 0; after < 3; after++) {
        const { answer, error } = await withFault(sql, { ...fault(after, victim), replacement: join(dir, 'hive', 'p=8', 'f.vtx') });
        if (error !== undefined) expect(error).toContain(`simstore://${victim}`);
        else if (!label.startsWith('a changed')) expect(answer).toEqual(old);
        else {
          // p=7 as it was, or holding p=8's rows (its partition key still 7).
          const p7 = (answer as unknown[][]).find((r) => r[0] === 7n);
          const p8 = (old as unknown[][]).find((r) => r[0] === 8n);
          expect(answer!.filter((r) => r[0] !== 7n)).toEqual(old!.filter((r) => r[0] !== 7n));
          expect([old!.find((r) => r[0] === 7n)![1], p8![1]]).toContainEqual(p7![1]);
        }
      }
    }
  });
});
