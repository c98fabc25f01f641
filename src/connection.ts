import { types } from 'node:util';

/**
 * What duckdb-vortex needs of a connection: a `DuckDBConnection` of `@duckdb/node-api`, from
 * whichever copy of that package the service uses. Structural (public methods only), so that a
 * connection from the service's copy type-checks even when duckdb-vortex resolves another copy
 * (a symlinked install, `npm link`); `DuckDBConnection`'s private members would make two copies'
 * classes incompatible for TypeScript.
 */
export interface DuckDBConnectionLike {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRows(): readonly (readonly unknown[])[] }>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name ? name : 'object';
}

/**
 * The native handle of a `DuckDBConnection`, recognised by structure rather than `instanceof`
 * (which only holds for the copy of @duckdb/node-api that duckdb-vortex itself would resolve):
 * node-api keeps the handle in its TS-private field `connection`, an N-API external, beside the
 * public `run`/`runAndReadAll`. The addon then checks the external's N-API type tag, so only a
 * connection handle of @duckdb/node-bindings is ever read as one.
 */
export function connectionHandle(conn: unknown, caller: string): unknown {
  const o = conn as { connection?: unknown; run?: unknown; runAndReadAll?: unknown } | null;
  if (
    o === null || typeof o !== 'object' || !types.isExternal(o.connection) ||
    typeof o.run !== 'function' || typeof o.runAndReadAll !== 'function'
  ) {
    const what = describe(conn);
    const hint = what === 'DuckDBInstance' ? ' (a DuckDBInstance: pass `await instance.connect()`)' : '';
    throw new TypeError(`duckdb-vortex: ${caller}: expected a DuckDBConnection from @duckdb/node-api as its first argument, got ${what}${hint}`);
  }
  return o.connection;
}

/** The DuckDB release behind `conn`, as DuckDB reports it (e.g. "vX.Y.Z"): that of the service's copy of node-api. */
export async function duckdbVersionOf(conn: DuckDBConnectionLike): Promise<string> {
  const reader = await conn.runAndReadAll('SELECT version()');
  const v = reader.getRows()[0]?.[0];
  if (typeof v !== 'string') throw new Error(`duckdb-vortex: could not read DuckDB's version from the connection (got ${String(v)})`);
  return v;
}
