import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(__dirname, '..');
/** The built command line, as `npm install` (the "prepare" script) leaves it. */
export const cli = join(root, 'dist', 'cli', 'main.js');

/** Builds dist/ only when it is missing (CI and `npm install` have built it already). */
export function ensureBuilt(): void {
  if (!existsSync(cli)) execFileSync(process.execPath, [join(root, 'scripts', 'build-ts.mjs')], { stdio: 'inherit' });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `vtx <args>` in a child process, stdin from `input` (empty otherwise). Asynchronous, so
 * the test worker stays responsive while long commands (coherence, demo) run.
 */
export function vtx(args: readonly string[], opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Under scripts/test-duckdb-line.mjs the CLI, too, must load that line's @duckdb/node-api.
    const preload = process.env.VORTEX_NODE_API_DIR ? ['-r', join(root, 'scripts', 'with-node-api.cjs')] : [];
    const child = spawn(process.execPath, [...preload, cli, ...args], {
      cwd: opts.cwd ?? root,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** The seed's tables: CI lays shared/ next to the checkout; a copy lives in test/fixtures. */
export function seedPath(): string {
  return [join(root, '..', 'shared', 'coherence', 'seed-matrix.json'), join(__dirname, 'fixtures', 'seed-matrix.json')].find((p) => existsSync(p))!;
}
