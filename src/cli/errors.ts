/** An error the command line reports as `vtx: <message>` and exits with `exitCode`. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'CliError';
  }
}

/** Exit codes: 0 success, 1 failure (bad file, SQL error, mismatch), 2 usage error. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A wrong argument value, reported like commander's own usage errors (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(`${message}\n(add --help for usage)`, EXIT_USAGE);
}

/**
 * DuckDB's message, tidied: its query excerpt (`LINE 1: ...`) appears once (DuckDB 1.4 repeats
 * it for parser errors), or not at all when the query is ours rather than the user's.
 */
export function duckdbMessage(message: string, keepExcerpt = true): string {
  const [head, ...excerpts] = message.split(/\n\n(?=LINE \d+:)/);
  const kept = keepExcerpt ? [...new Set(excerpts.map((e) => e.trimEnd()))] : [];
  return [head.trimEnd(), ...kept].join('\n\n');
}

/** Runs `fn`; an error from a statement the command line wrote itself loses DuckDB's excerpt of that statement. */
export async function internalQuery<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof CliError || !(e instanceof Error)) throw e;
    throw new CliError(duckdbMessage(e.message, false));
  }
}

/** The message to print for anything thrown while running a command. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return duckdbMessage(e.message);
  return String(e);
}
