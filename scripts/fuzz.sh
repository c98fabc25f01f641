#!/usr/bin/env bash
# Builds and runs the libFuzzer target over the .vtx reader (fuzz/format_reader_fuzzer.cpp),
# with AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS]          build, (re)write the seed corpus, fuzz for SECONDS (default 60)
#   scripts/fuzz.sh --build            build only
#   scripts/fuzz.sh --repro FILE...    run the target once on each FILE (e.g. fuzz/out/crash-*)
#   scripts/fuzz.sh --minimize         merge fuzz/corpus-run/ into the kept corpus, keeping only the
#                                      inputs that add coverage (libFuzzer -merge=1), and repack
#                                      fuzz/corpus.tar.xz for committing
#
# Corpus: fuzz/corpus-run/ (the working corpus, git-ignored; new inputs go there); the kept corpus,
# fuzz/corpus.tar.xz in git (one small archive rather than thousands of files), unpacked into
# fuzz/corpus-kept/ (git-ignored, read only), so that a fresh clone does not start again from the
# seeds; and fuzz/regressions/ (inputs that once failed, in git, re-run first). Findings and logs: fuzz/out/ (git-ignored). Exit status: 0 when the run ended without a finding, 1 when it found one,
# 2 when something needed is missing. Nothing is installed by this script.
# Environment: FUZZ_MAX_LEN (largest input, default 8192), CXX (default clang++).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
CXX="${CXX:-clang++}"
bin="$root/build-fuzz/format_reader_fuzzer"
corpus="$root/fuzz/corpus-run"
kept="$root/fuzz/corpus-kept"
archive="$root/fuzz/corpus.tar.xz"
out="$root/fuzz/out"

missing=()
command -v "$CXX" >/dev/null 2>&1 || missing+=("$CXX (Debian/Ubuntu: apt-get install clang)")
command -v node >/dev/null 2>&1 || missing+=("node")
if command -v "$CXX" >/dev/null 2>&1; then
	rt="$("$CXX" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)"
	if [[ "$rt" != /* || ! -f "$rt" ]]; then
		# Some layouts keep the runtime under a target triple; a link test is the real check.
		if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long){return 0;}' |
			"$CXX" -x c++ -fsanitize=fuzzer - -o /dev/null >/dev/null 2>&1; then
			missing+=("libFuzzer runtime for $CXX (Debian 12: apt-get install libclang-rt-14-dev)")
		fi
	fi
fi
if ((${#missing[@]})); then
	echo "fuzz.sh: missing, please install:" >&2
	printf '  - %s\n' "${missing[@]}" >&2
	exit 2
fi

build() {
	# Skip when the binary is newer than every source it is built from.
	if [[ -x "$bin" && -z "$(find fuzz/format_reader_fuzzer.cpp native/format native/compute -newer "$bin" -type f | head -1)" ]]; then
		return 0
	fi
	mapfile -t includes < <(node scripts/build-config.mjs includes)
	local libduckdb
	libduckdb="$(node scripts/build-config.mjs libduckdb)"
	local inc=()
	for d in "${includes[@]}"; do inc+=(-isystem "$d"); done
	mkdir -p "$(dirname "$bin")"
	echo "fuzz.sh: building $bin"
	# -O1 -g: fast enough to fuzz, precise enough to read a report. Every UBSan check aborts.
	"$CXX" -std=c++17 -g -O1 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		"${inc[@]}" \
		fuzz/format_reader_fuzzer.cpp $(find native/format native/compute -name '*.cpp' | sort) \
		"$libduckdb" -Wl,-rpath,"$(dirname "$libduckdb")" \
		-o "$bin"
}

# fuzz/corpus.tar.xz into fuzz/corpus-kept/, again whenever the archive is the newer.
unpack_kept() {
	mkdir -p "$kept"
	if [[ -f "$archive" && (! -f "$kept.stamp" || "$archive" -nt "$kept.stamp") ]]; then
		find "$kept" -mindepth 1 -delete
		xz -dc "$archive" | tar -C "$kept" -xf -
		touch "$kept.stamp"
	fi
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

case "${1:-}" in
--build)
	build
	exit 0
	;;
--repro)
	shift
	build
	"$bin" -runs=1 "$@"
	exit $?
	;;
--minimize)
	build
	unpack_kept
	fresh="$(mktemp -d "$root/fuzz/corpus-merge.XXXXXX")"
	mkdir -p "$corpus" "$out"
	before="$(find "$kept" -type f | wc -l)"
	# The first directory receives the inputs that add coverage over the ones before it.
	"$bin" -merge=1 -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=10 -rss_limit_mb=2048 "$fresh" "$kept" "$corpus" \
		>"$out/minimize.log" 2>&1 || { echo "fuzz.sh: merge failed, see $out/minimize.log" >&2; rm -rf "$fresh"; exit 1; }
	rm -rf "$kept"
	mv "$fresh" "$kept"
	# Stable bytes for the same files: sorted names, no times or owners.
	tar -C "$kept" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | xz -9 >"$archive.tmp"
	mv "$archive.tmp" "$archive"
	touch "$kept.stamp"
	echo "fuzz.sh: kept corpus $before -> $(find "$kept" -type f | wc -l) inputs; fuzz/corpus.tar.xz $(du -k "$archive" | cut -f1) KiB"
	exit 0
	;;
esac

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
	echo "usage: scripts/fuzz.sh [SECONDS] | --build | --repro FILE..." >&2
	exit 2
fi
build
mkdir -p "$corpus" "$out"
node fuzz/make-seeds.mjs "$corpus"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
log="$out/fuzz-$stamp.log"
before="$(find "$out" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)"
corpus_before="$(find "$corpus" -type f | wc -l)"
echo "fuzz.sh: fuzzing for ${seconds}s; log $log"
set +e
t0=$(date +%s)
unpack_kept
"$bin" "$corpus" "$kept" "$root/fuzz/regressions" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/" -print_final_stats=1 >"$log" 2>&1
status=$?
elapsed=$(($(date +%s) - t0))
after="$(find "$out" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)"
execs="$(awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")"
corpus_after="$(find "$corpus" -type f | wc -l)"
set -e
echo "fuzz.sh: ran ${elapsed}s (of ${seconds}s asked): $execs executions; corpus $corpus_before -> $corpus_after files; findings: $((after - before)); exit status $status"
# A summary line per run, so that the totals in docs/RELIABILITY.md can be added up.
echo "$stamp seconds=$elapsed execs=$execs corpus=$corpus_after findings=$((after - before)) status=$status" >>"$out/runs.txt"
if ((after > before || status != 0)); then
	echo "fuzz.sh: FINDING — see $log and the new files in $out/" >&2
	tail -n 60 "$log" >&2
	exit 1
fi
