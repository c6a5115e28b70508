#!/bin/sh
# Runs libFuzzer targets for a bounded time each, from seeds made here
# (the corpus, fixtures, rules and generated hostile shapes: long method
# chains, deep nesting, many cells) and each target's dictionary, after
# replaying the saved crash inputs (tests/fuzz/crashes/TARGET/*) as tests.
# Any crash, sanitizer report, leak or timeout fails the run; libFuzzer
# leaves the failing input as build/fuzz-work/TARGET/crash-* (or leak-*,
# timeout-*): keep it under tests/fuzz/crashes/TARGET/ once fixed.
# FUZZ_TIMEOUT: seconds one input may take (default 20; raise it on a loaded
# machine, where a nice-d fuzzer waits for the CPU: the per-file CPU-time
# bound of the engine still ends real stalls).
# usage: run-fuzz.sh BUILD_DIR SECONDS TARGET...
#   (the fuzzers are BUILD_DIR/fuzz-TARGET; SECONDS 0: replay only)
set -u
build=$(cd "$1" && pwd)
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
passed=0
failed=0

# chain N: `x = f(x).f(x)...`; nest N OPEN CLOSE: N-deep nesting.
chain() { awk -v n="$1" 'BEGIN { print "import torch"; printf "x = f(x)"; for (i = 1; i < n; i++) printf ".f(x)"; print "" }'; }
nest() { awk -v n="$1" -v o="$2" -v c="$3" 'BEGIN { printf "y = "; for (i = 0; i < n; i++) printf "%s", o; printf "x"; for (i = 0; i < n; i++) printf "%s", c; print "" }'; }

seeds_python() {
	n=0
	for f in "$root"/corpus/*/*.py "$root"/examples/*.py; do
		n=$((n + 1))
		cp "$f" "$1/py$n"
	done
	chain 3000 >"$1/chain3000"
	chain 200 >"$1/chain200"
	nest 2000 "f(" ")" >"$1/nest-call"
	nest 2000 "[" "]" >"$1/nest-list"
	nest 1000 "(" ")" >"$1/nest-paren"
	awk 'BEGIN { for (i = 0; i < 100; i++) { for (k = 0; k < i; k++) printf " "; print "if x:" } for (k = 0; k < 100; k++) printf " "; print "pass" }' >"$1/nest-if"
	awk 'BEGIN { print "import torch"; print "def f(model, x):"; print "    model.eval()"; print "    x0 = model(x)"; for (i = 0; i < 2000; i++) printf "    x%d = x%d + 1\n", i + 1, i }' >"$1/assign-chain"
	awk 'BEGIN { printf "data = ["; for (i = 0; i < 5000; i++) printf "%d, ", i; print "]" }' >"$1/long-list"
}

seeds_notebook() {
	n=0
	for f in "$root"/tests/fixtures/*.ipynb; do
		n=$((n + 1))
		cp "$f" "$1/nb$n"
	done
	awk 'BEGIN { printf "{\"cells\": ["; for (i = 0; i < 500; i++) printf "%s{\"cell_type\": \"code\", \"source\": [\"x%d = f(x)\\n\", \"%%time\\n\"], \"metadata\": {}, \"outputs\": []}", (i ? ", " : ""), i; print "], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}" }' >"$1/many-cells"
	{ printf '{"cells": [{"cell_type": "code", "source": "'; chain 1000 | tr -d '\n'; printf '"}], "nbformat": 4, "nbformat_minor": 5}\n'; } >"$1/chain-cell"
}

seeds_config() {
	n=0
	for f in "$root"/tests/fixtures/*.toml "$root"/rules/*.toml; do
		n=$((n + 1))
		cp "$f" "$1/toml$n"
	done
	# Odd length: read as pyproject.toml.
	printf '[tool.torchlint]\nselect = ["ALL"]\nignore = ["TL207"]\ntorch-version = "2.4"\n[tool.torchlint.per-file-ignores]\n"tests/*.py" = ["TL1"]\n' >"$1/pyproject"
	[ $(($(wc -c <"$1/pyproject") % 2)) = 1 ] || printf '\n' >>"$1/pyproject"
}

seeds_rules() {
	n=0
	for f in "$root"/queries/*.scm; do
		n=$((n + 1))
		cp "$f" "$1/scm$n"
		base=$(basename "$f" .scm)
		{ cat "$root/rules/$base.toml"; printf '%%%%\n'; cat "$f"; } >"$1/pair$n"
	done
	printf '(_) @finding\n' >"$1/every"
	printf '((expression_statement) @finding . (expression_statement))\n' >"$1/siblings"
	printf '(_ (identifier) @x) @finding\n' >"$1/wildcard-child"
	printf '((comment)+ @finding)\n' >"$1/quantified"
}

seeds_output() {
	n=0
	for f in "$root"/corpus/scripts/*.py "$root"/examples/*.py; do
		n=$((n + 1))
		{ printf 'dir/\303\251\377\033[31m%d.py\n' "$n"; cat "$f"; } >"$1/out$n"
	done
	{ printf 'x.py\n'; printf 'def f(:\n    x = "\377\033]0;t\007"\n'; } >"$1/bad-bytes"
}

seeds_fix() {
	# The first byte picks the mode: bit 0 unsafe fixes, bit 1 --add-noqa,
	# bit 2 a notebook.
	n=0
	for f in "$root"/tests/fixes/*/*.py "$root"/corpus/scripts/*.py; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		{ printf '\001'; cat "$f"; } >"$1/unsafe$n"
		{ printf '\000'; cat "$f"; } >"$1/safe$n"
		{ printf '\002'; cat "$f"; } >"$1/noqa$n"
	done
	for f in "$root"/tests/fixes/*/*.ipynb "$root"/tests/fixtures/*.ipynb; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		{ printf '\005'; cat "$f"; } >"$1/nb$n"
		{ printf '\006'; cat "$f"; } >"$1/nbnoqa$n"
	done
}

seeds_project() {
	# Ops (fuzz_project.c): a byte FILE | FORM << 3, then its argument.
	# Star imports between m0 and m1 and into the package, a re-export,
	# a from-import train.py calls in its loop, a class it builds.
	printf '\015\005\016\004\011\055\021\130\040\000\060\000\050\010' >"$1/stars"
	# Relative imports up and down the package, a cycle through __init__.
	printf '\012\007\013\011\014\016\023\010\021\007\020\001\060\011\042\050' >"$1/relative"
	# A module named like PyTorch's, imported by name and from.
	printf '\017\000\020\006\047\030\060\030\102\006' >"$1/torch-named"
	# Raw bytes between the forms: broken lines, the empty-module recovery.
	printf '\170\022from\nimport aaaa torch\n\015\005\020\024' >"$1/raw"
	awk 'BEGIN { srand(7); for (k = 0; k < 6; k++) { f = "'"$1"'/random" k; for (i = 0; i < 120; i++) printf "%c", int(rand() * 127) + 1 > f } }'
}

for target in "$@"; do
	fuzzer=$build/fuzz-$target
	work=$build/fuzz-work/$target
	seeds=$build/fuzz-seeds/$target
	mkdir -p "$work/corpus"
	rm -rf "$seeds"
	mkdir -p "$seeds"
	"seeds_$target" "$seeds"
	dict=$here/$target.dict
	[ -f "$dict" ] || case $target in
		output|fix|project) dict=$here/python.dict ;;
		rules) dict=$here/query.dict ;;
		config) dict=$here/toml.dict ;;
	esac
	# The saved crash inputs, each run once: a regression test per bug fixed.
	saved=$(ls "$here/crashes/$target" 2>/dev/null | wc -l)
	if [ "$saved" -gt 0 ]; then
		if (cd "$work" && "$fuzzer" -runs=1 -timeout=60 -rss_limit_mb=4096 "$here/crashes/$target"/* >"$work/replay.log" 2>&1); then
			echo "fuzz $target: $saved saved inputs replayed"
		else
			tail -40 "$work/replay.log"
			echo "fuzz $target: replaying tests/fuzz/crashes/$target failed"
			failed=$((failed + 1))
			continue
		fi
	fi
	if [ "$seconds" -gt 0 ]; then
		(cd "$work" && "$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout="${FUZZ_TIMEOUT:-20}" \
			-rss_limit_mb=4096 -dict="$dict" -print_final_stats=1 \
			"$work/corpus" "$seeds" >"$work/log" 2>&1)
		status=$?
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
		cov=$(grep -a -E '^#[0-9]+' "$work/log" | tail -1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p')
		if [ $status -ne 0 ]; then
			tail -60 "$work/log"
			echo "fuzz $target: FAILED after ${execs:-?} executions (input left in $work)"
			failed=$((failed + 1))
			continue
		fi
		echo "fuzz $target: ${execs:-?} executions in ${seconds}s, $cov, no crash"
	fi
	passed=$((passed + 1))
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
