// Child process of test/corruption-sweep.test.ts: applies one mutation at a time to a good
// .vtx file, writes it under a fresh name (so no cached footer can hide the change), and runs
// a full scan, a filtered scan and a pushed aggregate over it. One JSON line per case on stdout:
//   {"i": case index, "q": [outcome per query]}  with outcome "ok" | "wrong" | "E:<message>"
// The first line answers the unmodified file. A native crash kills this process; the parent
// notices the missing line and records the case as a crash.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerVortex } from '../../src/index';
import { canonical } from './canonical';

export interface SweepJob {
  base: string; //! the good file
  dir: string; //! where mutated copies are written
  cases: Array<[kind: 'flip' | 'set' | 'trunc', offset: number, value: number, index: number]>;
  queries: string[]; //! SQL with $FILE for the path
}

async function answer(conn: DuckDBConnection, sql: string): Promise<string> {
  const r = await conn.runAndReadAll(sql);
  return canonical(r.getRowsJS());
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SweepJob;
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  await registerVortex(conn);
  const sq = (p: string) => `'${p.replace(/'/g, "''")}'`;
  const good = readFileSync(job.base);
  const expected: string[] = [];
  for (const q of job.queries) expected.push(await answer(conn, q.replaceAll('$FILE', sq(job.base))));
  process.stdout.write(`${JSON.stringify({ i: -1, q: expected })}\n`);

  for (const [kind, offset, value, index] of job.cases) {
    let bytes: Buffer;
    if (kind === 'trunc') {
      bytes = good.subarray(0, offset);
    } else {
      bytes = Buffer.from(good);
      bytes[offset] = kind === 'flip' ? bytes[offset] ^ value : value;
    }
    const file = join(job.dir, `case-${index}.vtx`);
    writeFileSync(file, bytes);
    const out: string[] = [];
    for (let k = 0; k < job.queries.length; k++) {
      try {
        const got = await answer(conn, job.queries[k].replaceAll('$FILE', sq(file)));
        out.push(got === expected[k] ? 'ok' : `wrong:${got.slice(0, 200)}`);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        out.push(`E:${msg.includes(`"${file}"`) || msg.includes(`'${file}'`) ? '' : 'UNNAMED '}${msg.replaceAll(file, '$FILE')}`);
      }
    }
    rmSync(file, { force: true });
    process.stdout.write(`${JSON.stringify({ i: index, q: out })}\n`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`sweep worker failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(3);
  },
);
