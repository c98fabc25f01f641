#!/usr/bin/env node
// Compiles the TypeScript once (CommonJS) and adds a thin ESM entry that re-exports it,
// so `import` and `require` share one module instance and one native addon.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const resolveTsc = () => createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

/**
 * `npm install ../duckdb-vortex` links the folder and runs its `prepare` (this script) and
 * `install`, but installs none of the folder's dependencies when it lies outside the service
 * (npm's documented rule for folders): neither the compiler needed here nor the packages the
 * linked code requires at run time. So a fresh clone gets them as a git dependency does, from its
 * own package-lock.json, scripts left out (its `install` runs next, for the service's DuckDB).
 * The outer npm's settings reach this one as npm_config_* variables; those that would install
 * elsewhere (`npm link` is global) or leave the compiler out are dropped.
 */
function installOwnDependencies() {
  const drop = /^npm_config_(global|location|prefix|local_prefix|omit|include|only|production|dev|save.*|dry_run|package_lock.*|install_links|workspaces?|ignore_scripts|before)$/i;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !drop.test(k)));
  process.stderr.write(`[duckdb-vortex] ${root} has no dependencies installed of its own (npm install <folder> does not ` +
    'install a linked folder\'s): installing them there first (npm install --ignore-scripts --no-save)\n');
  const npmCli = process.env.npm_execpath;
  const [cmd, pre] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : ['npm', []];
  execFileSync(cmd, [...pre, 'install', '--ignore-scripts', '--include=dev', '--no-save', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env });
}

let tsc;
try {
  tsc = resolveTsc();
} catch {
  installOwnDependencies();
  tsc = resolveTsc();
}
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });

const names = Object.keys(createRequire(import.meta.url)(join(root, 'dist', 'index.js'))).filter((n) => n !== '__esModule');
writeFileSync(
  join(root, 'dist', 'index.mjs'),
  `import cjs from './index.js';\n${names.map((n) => `export const ${n} = cjs.${n};`).join('\n')}\n`,
);
writeFileSync(join(root, 'dist', 'index.d.mts'), `export * from './index.js';\n`);
const cli = join(root, 'dist', 'cli', 'main.js');
if (existsSync(cli)) chmodSync(cli, 0o755);
