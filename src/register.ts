import { connectionHandle, duckdbVersionOf, type DuckDBConnectionLike } from './connection';
import { PUSHDOWN_SETTINGS } from './catalog';
import { loadAddon } from './native';
import { compileRules, resolveRules, type PushdownFlags, type PushdownRule, type PushdownRuleName } from './rules';

export type { DuckDBConnectionLike } from './connection';

export interface RegisterOptions {
  /** Switches for this connection (each a `SET vortex_pushdown_*`); absent flags keep their current value. */
  pushdown?: PushdownFlags;
  /**
   * Narrows the allow-list for the whole database: rule objects of `pushdownRules`, or names
   * (`'sum'`, `'count_star'`, `'sum(BIGINT)'`: see `PushdownRuleName`); anything else throws.
   * A database keeps the rules of its first registration: a later call that passes different
   * rules (compared as a set) throws, one that passes the same rules is a no-op. Omitted, the
   * call accepts whatever the database has: the full allow-list if this call registers,
   * otherwise the rules the database was first registered with (even narrowed ones).
   */
  rules?: readonly (PushdownRule | PushdownRuleName)[];
}

export interface RegisterResult {
  /** False when the database already had the extension (this call changed no registration). */
  registered: boolean;
}


/** All pushdown settings, as DuckDB knows them. */
export const pushdownSettings: readonly string[] = Object.values(PUSHDOWN_SETTINGS);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

/** An options object with only `known` keys; the error names the first other one. */
function checkKeys(value: unknown, where: string, known: readonly string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new TypeError(`duckdb-vortex: ${where} must be an object, got ${kind(value)}`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`duckdb-vortex: unknown option ${where}.${key} (expected ${known.join(', ')})`);
  }
  return value;
}

/** `SET` statements for `flags`, every flag checked before any is returned. */
function pushdownStatements(flags: unknown, where: string, global: boolean): string[] {
  const checked = checkKeys(flags, where, Object.keys(PUSHDOWN_SETTINGS));
  return Object.entries(checked).map(([flag, value]) => {
    if (typeof value !== 'boolean') throw new TypeError(`duckdb-vortex: ${where}.${flag} must be a boolean, got ${kind(value)}`);
    return `SET ${global ? 'GLOBAL ' : ''}${PUSHDOWN_SETTINGS[flag as keyof typeof PUSHDOWN_SETTINGS]} = ${value}`;
  });
}

async function applySettings(conn: DuckDBConnectionLike, statements: string[]): Promise<void> {
  for (const sql of statements) {
    try {
      await conn.run(sql);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/vortex_pushdown/.test(message) && /unrecognized configuration|not found|Catalog Error/i.test(message)) {
        throw new Error(
          `duckdb-vortex: setPushdown: the database behind this connection has no vortex settings yet. ` +
            `Call registerVortex(conn) first (once per database; it registers vortex_scan, COPY ... (FORMAT vortex) ` +
            `and the vortex_pushdown* settings), or pass the flags to it: registerVortex(conn, { pushdown: {...} }). (DuckDB said: ${message})`,
        );
      }
      throw e;
    }
  }
}

/**
 * Registers vortex_scan, COPY ... (FORMAT vortex), the pushdown optimizer and its settings in
 * the database behind `conn` (a `DuckDBConnection` from the service's own `@duckdb/node-api`,
 * whichever copy and supported version that is). Every option is checked before anything
 * changes. Idempotent per database: later calls, from this or any other connection of the same
 * database, register nothing again — but a later call whose `rules` differ from the ones the
 * database was registered with throws (see `RegisterOptions.rules`). Safe while other
 * connections of the database run queries.
 */
export async function registerVortex(conn: DuckDBConnectionLike, options: RegisterOptions = {}): Promise<RegisterResult> {
  const handle = connectionHandle(conn, 'registerVortex');
  const opts = checkKeys(options, 'options', ['pushdown', 'rules']);
  const statements = pushdownStatements(opts.pushdown, 'options.pushdown', false);
  const rules = opts.rules === undefined ? undefined : resolveRules(opts.rules, 'options.rules');
  const addon = loadAddon(await duckdbVersionOf(conn));
  const registered = addon.attach(handle, compileRules(rules), rules !== undefined);
  await applySettings(conn, statements);
  return { registered };
}

/** Switches pushdown for this connection (or, with `global`, for every connection). Needs `registerVortex` first. */
export async function setPushdown(conn: DuckDBConnectionLike, flags: PushdownFlags, opts: { global?: boolean } = {}): Promise<void> {
  connectionHandle(conn, 'setPushdown');
  const { global } = checkKeys(opts, 'setPushdown options', ['global']);
  if (global !== undefined && typeof global !== 'boolean') throw new TypeError(`duckdb-vortex: setPushdown options.global must be a boolean, got ${kind(global)}`);
  if (flags === undefined) throw new TypeError('duckdb-vortex: setPushdown: flags must be an object, got undefined');
  await applySettings(conn, pushdownStatements(flags, 'flags', global === true));
}
