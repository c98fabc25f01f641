#!/usr/bin/env node
// Compiles the TypeScript once (CommonJS) and adds a thin ESM entry that re-exports it,
// so `import` and `require` share one module instance and one native addon.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });

const names = Object.keys(createRequire(import.meta.url)(join(root, 'dist', 'index.js'))).filter((n) => n !== '__esModule');
writeFileSync(
  join(root, 'dist', 'index.mjs'),
  `import cjs from './index.js';\n${names.map((n) => `export const ${n} = cjs.${n};`).join('\n')}\n`,
);
writeFileSync(join(root, 'dist', 'index.d.mts'), `export * from './index.js';\n`);
const cli = join(root, 'dist', 'cli', 'main.js');
if (existsSync(cli)) chmodSync(cli, 0o755);
