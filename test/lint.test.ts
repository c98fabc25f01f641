// The tests are type-checked like the sources: `npm run lint` checks src/ and test/ in strict
// mode, and CI (.ci/run) runs it, counting a failing lint as a failure in its summary line.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers';

const root = join(__dirname, '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('type checking of the tests', () => {
  it('tsconfig.test.json covers every .ts file of src/ and test/, in strict mode, without emitting', () => {
    const listed = execFileSync(process.execPath, [tsc, '-p', 'tsconfig.test.json', '--listFilesOnly'], { cwd: root, encoding: 'utf8' })
      .split('\n').map((f) => f.trim()).filter((f) => f && !f.includes('node_modules')).map((f) => relative(root, f));
    const wanted = [...tsFiles(join(root, 'src')), ...tsFiles(join(root, 'test'))].map((f) => relative(root, f));
    expect(wanted.filter((f) => !listed.includes(f))).toEqual([]);
    const config = JSON.parse(execFileSync(process.execPath, [tsc, '-p', 'tsconfig.test.json', '--showConfig'], { cwd: root, encoding: 'utf8' })) as {
      compilerOptions: { strict?: boolean; noEmit?: boolean };
    };
    expect(config.compilerOptions.strict).toBe(true);
    expect(config.compilerOptions.noEmit).toBe(true);
  });

  it('npm run lint checks both the build config and the test config', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toMatch(/tsc -p tsconfig\.json --noEmit/);
    expect(pkg.scripts.lint).toMatch(/tsc -p tsconfig\.test\.json/);
  });
});

describe('.ci/run', () => {
  // .ci/run in a scratch repository, with an `npm` on PATH that fakes install, test and lint.
  function runCi(lintExit: number): { status: number | null; lastLine: string; output: string } {
    const dir = tempDir('vtx-ci-');
    const repo = join(dir, 'repo');
    const bin = join(dir, 'bin');
    mkdirSync(join(repo, '.ci'), { recursive: true });
    mkdirSync(bin);
    copyFileSync(join(root, '.ci', 'run'), join(repo, '.ci', 'run'));
    writeFileSync(join(repo, '.gitignore'), '.ci-results.json\n');
    writeFileSync(
      join(bin, 'npm'),
      `#!/usr/bin/env bash
case "$1" in
  install) exit 0 ;;
  test)
    for a in "$@"; do case "$a" in --outputFile.json=*) out="\${a#--outputFile.json=}" ;; esac; done
    echo '{"numPassedTests":3,"numFailedTests":0,"numPendingTests":0,"numTodoTests":0}' > "$out"
    exit 0 ;;
  run) [ "$2" = lint ] && exit ${lintExit}; exit 0 ;;
esac
exit 0
`,
    );
    chmodSync(join(bin, 'npm'), 0o755);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'ci');
    const r = spawnSync('bash', [join(repo, '.ci', 'run')], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, VORTEX_CI_SKIP_SUBSET: '1' },
    });
    const output = `${r.stdout}${r.stderr}`;
    const lines = r.stdout.trim().split('\n');
    return { status: r.status, lastLine: lines[lines.length - 1] ?? '', output };
  }

  it('runs npm run lint and counts a failing lint as a failure', () => {
    const bad = runCi(2);
    expect(bad.lastLine, bad.output).toBe('3 passed, 1 failed');
    expect(bad.status).not.toBe(0);
  });

  it('passes when tests and lint pass, keeping the summary format', () => {
    const good = runCi(0);
    expect(good.lastLine, good.output).toBe('3 passed, 0 failed');
    expect(good.status).toBe(0);
  });
});
