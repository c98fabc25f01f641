import { DuckDBConnection, version as duckdbVersion } from '@duckdb/node-api';
import { loadAddon } from './native';
import { compileRules, type PushdownFlag, type PushdownFlags, type PushdownRule } from './rules';
import { checkDuckDBVersion } from './version';

export interface RegisterOptions {
  /** Switches for this connection (each a `SET vortex_pushdown_*`); absent flags keep their current value. */
  pushdown?: PushdownFlags;
  /**
   * Narrows the allow-list for the whole database; rules outside `pushdownRules` are rejected.
   * A database keeps the rules of its first registration: a later call that passes different
   * rules (compared as a set) throws, one that passes the same rules is a no-op. Omitted, the
   * call accepts whatever the database has: the full allow-list if this call registers,
   * otherwise the rules the database was first registered with (even narrowed ones).
   */
  rules?: readonly PushdownRule[];
}

export interface RegisterResult {
  /** False when the database already had the extension (this call changed no registration). */
  registered: boolean;
}

const SETTING_OF: Record<'enabled' | 'grouped' | 'order' | 'expressions' | PushdownFlag, string> = {
  enabled: 'vortex_pushdown',
  grouped: 'vortex_pushdown_grouped',
  order: 'vortex_pushdown_order',
  expressions: 'vortex_pushdown_expressions',
  count: 'vortex_pushdown_count',
  sum: 'vortex_pushdown_sum',
  avg: 'vortex_pushdown_avg',
  min: 'vortex_pushdown_min',
  max: 'vortex_pushdown_max',
  distinct: 'vortex_pushdown_distinct',
  approx_distinct: 'vortex_pushdown_approx_distinct',
};

/** All pushdown settings, as DuckDB knows them. */
export const pushdownSettings: readonly string[] = Object.values(SETTING_OF);

function handleOf(conn: unknown): unknown {
  if (!(conn instanceof DuckDBConnection)) {
    const what = conn === null ? 'null' : typeof conn === 'object' ? (conn.constructor?.name ?? 'object') : typeof conn;
    throw new TypeError(
      `duckdb-vortex: expected a DuckDBConnection from @duckdb/node-api, got ${what}` +
        (conn && typeof conn === 'object' && 'connection' in conn ? ' (is a second copy of @duckdb/node-api installed?)' : ''),
    );
  }
  // The native handle is TS-private in @duckdb/node-api; the addon needs it to reach DuckDB.
  return (conn as unknown as { connection: unknown }).connection;
}

/**
 * Registers vortex_scan, COPY ... (FORMAT vortex), the pushdown optimizer and its settings in
 * the database behind `conn`. Idempotent per database: later calls, from this or any other
 * connection of the same database, register nothing again — but a later call whose `rules`
 * differ from the ones the database was registered with throws (see `RegisterOptions.rules`).
 * Safe while other connections of the database run queries.
 */
export async function registerVortex(conn: DuckDBConnection, options: RegisterOptions = {}): Promise<RegisterResult> {
  const handle = handleOf(conn);
  const addon = loadAddon();
  checkDuckDBVersion(duckdbVersion(), addon.duckdbVersion);
  const registered = addon.attach(handle, compileRules(options.rules), options.rules !== undefined);
  if (options.pushdown) await setPushdown(conn, options.pushdown);
  return { registered };
}

/** Switches pushdown for this connection (or, with `global`, for every connection). */
export async function setPushdown(conn: DuckDBConnection, flags: PushdownFlags, opts: { global?: boolean } = {}): Promise<void> {
  handleOf(conn);
  for (const [flag, value] of Object.entries(flags)) {
    const setting = SETTING_OF[flag as keyof typeof SETTING_OF];
    if (!setting) throw new Error(`duckdb-vortex: unknown pushdown flag "${flag}" (expected one of ${Object.keys(SETTING_OF).join(', ')})`);
    if (typeof value !== 'boolean') throw new TypeError(`duckdb-vortex: pushdown flag "${flag}" must be a boolean`);
    await conn.run(`SET ${opts.global ? 'GLOBAL ' : ''}${setting} = ${value}`);
  }
}
