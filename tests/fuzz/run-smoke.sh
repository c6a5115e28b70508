#!/bin/sh
# Runs the fuzz target for a bounded time from seeds made of the corpus
# (as Python, notebook and TOML inputs). Any crash, sanitizer report or
# leak fails the run; libFuzzer leaves the failing input as crash-*.
# usage: run-smoke.sh FUZZER SECONDS
set -u
fuzzer=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
seconds=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$root/build/fuzz-seeds
work=$root/build/fuzz-work
rm -rf "$seeds"
mkdir -p "$seeds" "$work"
n=0
for f in "$root"/corpus/*/*.py "$root"/examples/*.py; do
	n=$((n + 1))
	{ printf '\000'; cat "$f"; } >"$seeds/py$n"
done
for f in "$root"/tests/fixtures/*.ipynb; do
	n=$((n + 1))
	{ printf '\001'; cat "$f"; } >"$seeds/nb$n"
done
for f in "$root"/rules/*.toml "$root"/tests/fixtures/*.toml; do
	n=$((n + 1))
	{ printf '\002'; cat "$f"; } >"$seeds/toml$n"
done
cd "$work" || exit 1
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
	-print_final_stats=1 "$work" "$seeds" >"$work/log" 2>&1
status=$?
grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done)" "$work/log"
if [ $status -ne 0 ]; then
	tail -60 "$work/log"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi
echo "fuzz: 1 passed, 0 failed"
