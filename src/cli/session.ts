import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { registerVortex } from '../register';

/** A DuckDB connection with duckdb-vortex registered, for one command. */
export interface Session {
  conn: DuckDBConnection;
  close(): void;
}

/** Opens `database` (default: in memory) and registers vortex_scan, COPY ... (FORMAT vortex) and pushdown. */
export async function openSession(database = ':memory:'): Promise<Session> {
  const instance = await DuckDBInstance.create(database);
  const conn = await instance.connect();
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  try {
    await registerVortex(conn);
  } catch (e) {
    close();
    throw e;
  }
  return { conn, close };
}

/** Runs `fn` with a session that is closed afterwards, whatever happens. */
export async function withSession<T>(database: string | undefined, fn: (s: Session) => Promise<T>): Promise<T> {
  const session = await openSession(database);
  try {
    return await fn(session);
  } finally {
    session.close();
  }
}
