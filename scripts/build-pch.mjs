#!/usr/bin/env node
// binding.gyp's action before the glue compiles: precompiles build/pch/duckdb_pch.hpp (which includes
// native/duckdb/duckdb_pch.hpp) into build/pch/duckdb_pch.hpp.gch, once make has built the static
// library of native/format and native/compute (its target's dependency). GCC uses a precompiled
// header only when it was made with the same options as the file that includes it, so the command
// is the one make would run for a glue file, as `make -n` prints it. If anything here fails, the glue includes the header as
// text: the same build, only slower. Always exits 0.
//   node scripts/build-pch.mjs <build directory> <path of the .gch>
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const [build, gch] = process.argv.slice(2);
const wrapper = gch.replace(/\.gch$/, '');
const started = Date.now();
// A make of its own, not a sub-make of the running build.
const env = { ...process.env };
for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES']) delete env[k];
try {
  rmSync(gch, { force: true });
  const plan = execFileSync('make', ['-n', '-B', 'V=1', 'BUILDTYPE=Release', 'duckdb_vortex'], { cwd: build, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  // e.g. `g++ -o Release/obj.target/duckdb_vortex/build/unity/native-addon.o ../build/unity/native-addon.cpp '-D…' … -include …/duckdb_pch.hpp -MMD -MF ….d.raw -c`
  const compile = plan
    .split('\n')
    .map((l) => /^(\S+) -o \S+ \S*(?:native\/(?:duckdb|addon)|build\/unity)\/\S+\.cpp (.*) -c\s*$/.exec(l))
    .find((m) => m && m[2].includes(`-include ${wrapper}`));
  if (!compile) throw new Error('make -n printed no compile command for a glue file');
  const flags = compile[2].replace(` -include ${wrapper}`, '').replace(/ -MMD -MF \S+/, '');
  execFileSync('sh', ['-c', `${compile[1]} ${flags} -x c++-header -c -o ${gch} ${wrapper}`], { cwd: build, env, stdio: 'inherit' });
  process.stderr.write(`[duckdb-vortex] precompiled DuckDB's headers for the glue in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
} catch (e) {
  rmSync(gch, { force: true });
  process.stderr.write(`[duckdb-vortex] no precompiled header (${String(e.message).split('\n')[0]}); the glue compiles without it\n`);
}
