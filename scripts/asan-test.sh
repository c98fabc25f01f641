#!/usr/bin/env bash
# Runs the test suite against an AddressSanitizer + UndefinedBehaviorSanitizer build of the
# addon, with Node itself uninstrumented: the gcc sanitizer runtimes are LD_PRELOADed into
# every Node process (vitest's workers and the tests' own child processes inherit them), and
# the addon is selected with VORTEX_ADDON_PATH. Fails when any test fails or when any sanitizer
# report appears, in the output or in the per-process report files.
#
#   scripts/asan-test.sh [vitest arguments...]     e.g. scripts/asan-test.sh test/errors.test.ts
#
# Environment: ASAN_BUILD_DIR (default build-asan), ASAN_SKIP_BUILD=1 to reuse a build.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${ASAN_BUILD_DIR:-build-asan}"
addon="$root/$build_dir/Release/duckdb_vortex.node"

missing=()
command -v gcc >/dev/null 2>&1 || missing+=("gcc (with its sanitizer runtimes: libasan, libubsan)")
asan_rt="$(gcc -print-file-name=libasan.so 2>/dev/null)"
ubsan_rt="$(gcc -print-file-name=libubsan.so 2>/dev/null)"
[[ "$asan_rt" == /* && -e "$asan_rt" ]] || missing+=("libasan.so for gcc (Debian: apt-get install libasan8)")
[[ "$ubsan_rt" == /* && -e "$ubsan_rt" ]] || missing+=("libubsan.so for gcc (Debian: apt-get install libubsan1)")
if ((${#missing[@]})); then
	echo "asan-test.sh: missing, please install:" >&2
	printf '  - %s\n' "${missing[@]}" >&2
	exit 2
fi

if [[ "${ASAN_SKIP_BUILD:-0}" != 1 ]]; then
	echo "asan-test.sh: building $build_dir with -fsanitize=address,undefined"
	npx cmake-js compile --out "$build_dir" --CDVORTEX_SANITIZE=ON -p 2 || exit 1
fi
[[ -f "$addon" ]] || { echo "asan-test.sh: $addon was not built" >&2; exit 1; }
if [[ "$(nm -D "$addon" 2>/dev/null)" != *__asan_report* ]]; then
	echo "asan-test.sh: $addon is not instrumented (was it built with VORTEX_SANITIZE=ON?)" >&2
	exit 1
fi

reports="$(mktemp -d /tmp/vtx-asan-reports.XXXXXX)"
log="$root/$build_dir/asan-test.log"
# Node's own allocations are not ours to judge: no leak detection (the soak test watches memory).
# Every report is fatal and also written to $reports/<tool>.<pid>.
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_odr_violation=0:log_path=$reports/asan:log_exe_name=0:print_summary=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export LD_PRELOAD="$asan_rt:$ubsan_rt"
export VORTEX_ADDON_PATH="$addon"

# Preflight 1: a canary shared object with a deliberate heap overflow, loaded into Node exactly
# as the addon is, must produce a report file; otherwise this setup could not see a real one.
canary_dir="$(mktemp -d /tmp/vtx-asan-canary.XXXXXX)"
cat >"$canary_dir/canary.c" <<'C'
#include <stdlib.h>
__attribute__((constructor)) static void overflow(void) {
	volatile char *p = malloc(8);
	p[8] = 1;
	free((void *)p);
}
C
gcc -shared -fPIC -g -fsanitize=address "$canary_dir/canary.c" -o "$canary_dir/canary.so"
{ ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$canary_dir/report" node -e "try { process.dlopen({ exports: {} }, '$canary_dir/canary.so'); } catch (e) {}" >/dev/null 2>&1; } 2>/dev/null || true
if ! grep -qs 'heap-buffer-overflow' "$canary_dir"/report*; then
	echo "asan-test.sh: the sanitizer canary was not reported: this setup cannot detect errors" >&2
	exit 1
fi
rm -rf "$canary_dir"
# Preflight 2: the instrumented addon and the runtime are what Node actually loads.
node -e "
  require('@duckdb/node-api'); require(process.env.VORTEX_ADDON_PATH);
  const maps = require('fs').readFileSync('/proc/self/maps', 'utf8');
  if (!maps.includes('libasan.so') || !maps.includes(process.env.VORTEX_ADDON_PATH)) { console.error('not loaded'); process.exit(1); }
" || { echo "asan-test.sh: Node did not load the sanitizer runtime and the instrumented addon" >&2; exit 1; }
echo "asan-test.sh: preflight passed (a planted overflow is reported; the instrumented addon is loaded)"

echo "asan-test.sh: running the suite with LD_PRELOAD=$LD_PRELOAD"
echo "asan-test.sh: addon $VORTEX_ADDON_PATH; reports in $reports; log $log"
started=$(date +%s)
npx vitest run "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
unset LD_PRELOAD
elapsed=$(($(date +%s) - started))

found=0
if grep -Eq 'ERROR: AddressSanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$log"; then
	echo "asan-test.sh: sanitizer report in the test output:" >&2
	grep -E -A20 'ERROR: AddressSanitizer|runtime error:' "$log" | head -80 >&2
	found=1
fi
if compgen -G "$reports/*" >/dev/null; then
	echo "asan-test.sh: sanitizer report files:" >&2
	for f in "$reports"/*; do
		echo "== $f" >&2
		head -60 "$f" >&2
	done
	found=1
fi
if ((found)); then
	echo "asan-test.sh: FAILED: sanitizer reports (kept in $reports)" >&2
	exit 1
fi
rmdir "$reports" 2>/dev/null
if ((status != 0)); then
	echo "asan-test.sh: FAILED: the test suite failed under the sanitizers (exit $status), no sanitizer report" >&2
	exit "$status"
fi
echo "asan-test.sh: PASSED in ${elapsed}s: ${*:-the whole suite} under ASan+UBSan, no sanitizer report"
