#!/usr/bin/env bash
# gen.sh SF OUTDIR
#
# Writes the 24 TPC-DS tables at scale factor SF as OUTDIR/<table>.parquet, with the schema and
# values of DuckDB's `CALL dsdgen(sf=SF)` (the dsdgen of the dev dependency's DuckDB). Re-runnable: the generator is
# built once into $TPCDS_BUILD, and nothing is generated when OUTDIR already holds all 24 files
# and the marker for SF. Run it from the project root (it takes DuckDB's headers and libduckdb.so
# from there).
#
# The generator (tpcdsgen.cpp, next to this script) is compiled together with the dsdgen sources
# of DuckDB's tpcds extension, taken at build time from a git mirror of duckdb/duckdb (they are
# under the TPC's licence and never copied into the project), and links the DuckDB shared library
# that exports the C++ API. Environment overrides (defaults below):
#   DUCKDB_MIRROR   git dir of a duckdb/duckdb mirror
#   DUCKDB_REF      tag of that mirror to take extension/tpcds from (the dev dependency's tag)
#   DUCKDB_HEADERS  DuckDB C++ headers (has include/duckdb.hpp), same version as LIBDUCKDB
#   LIBDUCKDB       libduckdb.so exporting the C++ API (linked with an rpath to its folder)
#   TPCDS_BUILD     build/cache directory
#   JOBS            parallel compiles (2);  CXX  C++ compiler (g++)
set -euo pipefail

die() { echo "gen.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: gen.sh SF OUTDIR"
[[ $1 =~ ^[0-9]*\.?[0-9]+$ ]] || die "SF must be a positive number, got '$1'"
SF=$(awk -v s="$1" 'BEGIN { print s + 0 }') # canonical spelling: 1.0 -> 1, .1 -> 0.1
awk -v s="$SF" 'BEGIN { exit !(s > 0) }' || die "SF must be > 0"
OUTDIR=$2

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DUCKDB_MIRROR=${DUCKDB_MIRROR:-$HERE/../../../.mirror/duckdb+duckdb/repo}  # beside the project, where fetching duckdb/duckdb puts it
DUCKDB_VERSION=$(node -p "require('@duckdb/node-api/package.json').version.split('-')[0]")
DUCKDB_REF=${DUCKDB_REF:-v$DUCKDB_VERSION}
DUCKDB_HEADERS=${DUCKDB_HEADERS:-$PWD/.cache/duckdb-$DUCKDB_VERSION/src}  # run from the project root
LIBDUCKDB=${LIBDUCKDB:-$PWD/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so}
TPCDS_BUILD=${TPCDS_BUILD:-${TMPDIR:-/tmp}/tpcdsbuild}
JOBS=${JOBS:-2}
CXX=${CXX:-g++}

# the tables CreateTPCDSSchema makes (extension/tpcds/dsdgen/dsdgen.cpp)
TABLES="call_center catalog_page catalog_returns catalog_sales customer customer_address
customer_demographics date_dim household_demographics income_band inventory item promotion reason
ship_mode store store_returns store_sales time_dim warehouse web_page web_returns web_sales web_site"
MARKER="$OUTDIR/.tpcds-sf$SF"
BIN="$TPCDS_BUILD/tpcdsgen"

complete() {
	[ -f "$MARKER" ] || return 1
	local t
	for t in $TABLES; do [ -s "$OUTDIR/$t.parquet" ] || return 1; done
}

build() {
	local src="$TPCDS_BUILD/src" obj="$TPCDS_BUILD/obj" f n=0 fail=0
	[ -f "$DUCKDB_HEADERS/include/duckdb.hpp" ] || die "no DuckDB headers at DUCKDB_HEADERS=$DUCKDB_HEADERS"
	[ -f "$LIBDUCKDB" ] || die "no libduckdb.so at LIBDUCKDB=$LIBDUCKDB"
	echo "gen.sh: building $BIN (dsdgen from $DUCKDB_REF)" >&2
	rm -rf "$src" "$obj" "$BIN" "$TPCDS_BUILD/build.stamp"
	mkdir -p "$src" "$obj"
	# archive the subtree only: extension/tpcds as of DUCKDB_REF, without the queries and answers
	# (tpcds.mjs reads those from the mirror itself) and without dsdgen/include/tpcds_constants.hpp:
	# that header only embeds the queries and answers as strings for the extension's
	# tpcds_queries()/tpcds_answers() (DSDGenWrapper::GetQuery/GetAnswer, which tpcdsgen never
	# calls), and mirrors may lack its blob (it is large). A stand-in with the same names is
	# written below instead.
	git -C "$DUCKDB_MIRROR" archive --format=tar "$DUCKDB_REF:extension/tpcds" -- . ':(exclude)dsdgen/answers' \
		':(exclude)dsdgen/queries' ':(exclude)dsdgen/include/tpcds_constants.hpp' 2>"$TPCDS_BUILD/archive.log" |
		tar x -C "$src" ||
		die "cannot extract extension/tpcds at $DUCKDB_REF from DUCKDB_MIRROR=$DUCKDB_MIRROR: $(cat "$TPCDS_BUILD/archive.log")"
	{
		echo '// Stand-in written by bench/tpcds/gen.sh: the real header embeds the queries and answers.'
		echo '#pragma once'
		echo 'const int TPCDS_QUERIES_COUNT = 99;'
		local name i
		for name in TPCDS_QUERIES TPCDS_ANSWERS_SF0_01 TPCDS_ANSWERS_SF1; do
			printf 'const char *%s[] = {' "$name"
			for ((i = 0; i < 99; i++)); do printf '"",'; done
			echo '};'
		done
	} >"$src/dsdgen/include/tpcds_constants.hpp"
	# the sources of extension/tpcds/dsdgen/CMakeLists.txt and dsdgen/dsdgen-c/CMakeLists.txt, plus
	# tpcdsgen.cpp; include dirs as those CMakeLists (and extension/tpcds/CMakeLists.txt) add them
	local cc=("$CXX" -std=c++17 -O2 -fPIC -w -I"$DUCKDB_HEADERS/include" -I"$src/include"
		-I"$src/dsdgen/include" -I"$src/dsdgen/include/dsdgen-c")
	for f in "$src"/dsdgen/*.cpp "$src"/dsdgen/dsdgen-c/*.cpp "$HERE/tpcdsgen.cpp"; do
		if ((n >= JOBS)); then wait -n || fail=1; n=$((n - 1)); fi
		"${cc[@]}" -c "$f" -o "$obj/$(basename "$f" .cpp).o" &
		n=$((n + 1))
	done
	while ((n > 0)); do wait -n || fail=1; n=$((n - 1)); done
	((fail == 0)) || die "compile failed"
	local libdir
	libdir=$(cd "$(dirname "$LIBDUCKDB")" && pwd)
	"$CXX" -o "$BIN" "$obj"/*.o -L"$libdir" -l:"$(basename "$LIBDUCKDB")" -Wl,-rpath,"$libdir" -lpthread ||
		die "link failed"
	echo "$STAMP" >"$TPCDS_BUILD/build.stamp"
}

if complete; then
	echo "gen.sh: $OUTDIR already has TPC-DS sf$SF" >&2
	exit 0
fi

# build (or rebuild) when the binary is missing or was built from other inputs
mkdir -p "$TPCDS_BUILD"
STAMP="$DUCKDB_REF $DUCKDB_MIRROR $DUCKDB_HEADERS $LIBDUCKDB $(cksum <"$HERE/tpcdsgen.cpp") $(cksum <"$HERE/gen.sh")"
exec 8>"$TPCDS_BUILD/.lock"
flock 8
if [ ! -x "$BIN" ] || [ "$(cat "$TPCDS_BUILD/build.stamp" 2>/dev/null)" != "$STAMP" ]; then
	build
fi
flock -u 8

# generate into a scratch dir, then move the files into place and write the marker last
mkdir -p "$OUTDIR"
exec 9>"$OUTDIR/.tpcds.lock"
flock 9
if complete; then exit 0; fi # another run finished it while we waited
rm -f "$OUTDIR"/.tpcds-sf*
tmp=$(mktemp -d "$OUTDIR/.tpcds-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "gen.sh: generating TPC-DS sf$SF into $OUTDIR" >&2
start=$(date +%s)
"$BIN" "$SF" "$tmp"
for t in $TABLES; do
	[ -s "$tmp/$t.parquet" ] || die "tpcdsgen wrote no $t.parquet"
	mv -f "$tmp/$t.parquet" "$OUTDIR/$t.parquet"
done
echo "sf=$SF dsdgen=$DUCKDB_REF seconds=$(($(date +%s) - start))" >"$MARKER"
echo "gen.sh: done in $(($(date +%s) - start))s" >&2
