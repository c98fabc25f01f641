import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { CliError, usageError } from './errors';

/** `s3://…`, `https://…`: DuckDB's file systems reach these, the local one does not. */
export function isRemote(path: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path);
}

export function hasGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
};

/** Fails with `cannot open 'path': No such file or directory` (exit 1) unless `path` is a readable local file. */
export function requireFile(path: string): void {
  if (isRemote(path)) return;
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`cannot open '${path}': ${ERRNO_TEXT[code] ?? code}`);
  }
  if (!isFile) throw new CliError(`cannot open '${path}': Is a directory`);
}

/** A local input that may be a glob: only plain paths can be checked before DuckDB expands them. */
export function requireInput(path: string): void {
  if (!hasGlob(path)) requireFile(path);
}

/** The output of `convert` must be named like a .vtx file. */
export function requireVtxName(path: string): void {
  if (extname(path).toLowerCase() !== '.vtx') throw usageError(`output file must end in .vtx: '${path}'`);
}

/** The size of a local file, or undefined for remote paths. */
export function fileSize(path: string): number | undefined {
  if (isRemote(path)) return undefined;
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
