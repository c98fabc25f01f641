// Runs a TypeScript worker script in a child Node process (through vite-node, which vitest
// already ships), so that a crash of the native code kills the child, not the test runner.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const req = createRequire(__filename);

export function viteNodeCli(): string {
  const fromVitest = createRequire(req.resolve('vitest/package.json'));
  const pkgPath = fromVitest.resolve('vite-node/package.json');
  const bin = (fromVitest(pkgPath) as { bin: Record<string, string> }).bin['vite-node'];
  return join(dirname(pkgPath), bin);
}

export const workerDir = __dirname;

/**
 * vite-node's command line for a worker: under another DuckDB release than the dev dependency's
 * (scripts/test-duckdb-line.mjs sets VORTEX_NODE_API_DIR), with the config whose alias resolves
 * @duckdb/node-api to that release, as in the tests themselves.
 */
export function viteNodeArgs(): string[] {
  const config = process.env.VORTEX_NODE_API_DIR ? ['--config', join(__dirname, '..', '..', 'vitest.duckdb-line.config.ts')] : [];
  return [viteNodeCli(), ...config];
}

/** Spawns `node vite-node <test/workers/name> ...args`; stdio defaults to pipes. */
export function spawnWorker(name: string, args: string[] = [], options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, [...viteNodeArgs(), join(workerDir, name), '--', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...options,
    env: { ...process.env, ...(options.env ?? {}) },
  });
}

/** Calls `onLine` for each complete line the stream produces. */
export function onLines(stream: NodeJS.ReadableStream | null | undefined, onLine: (line: string) => void): void {
  if (!stream) return;
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  stream.on('end', () => {
    if (buf) onLine(buf);
  });
}
