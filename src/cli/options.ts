import { InvalidArgumentError, Option } from 'commander';

/** Commander argument parser for a positive integer (a bad value is a usage error, exit 2). */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError(`expected a positive integer, got '${value}'`);
  }
  return Number(value);
}

export function databaseOption(): Option {
  return new Option('-d, --database <file>', 'open this DuckDB database file instead of an in-memory database');
}

/** Whether to color terminal output (https://no-color.org). */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

export function green(s: string, on: boolean): string {
  return on ? `\x1b[32m${s}\x1b[39m` : s;
}
