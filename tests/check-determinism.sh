#!/bin/sh
# Output is byte-identical across thread counts and runs, and a file
# analysed alone (only the queries it needs are compiled) reports what it
# reports among all the others (all the selected rules' queries compiled).
# Usage: tests/check-determinism.sh ./torchlint
set -u
tl=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
paths="corpus validate/cases examples"
for format in concise json sarif; do
	for sel in "" "--select ALL"; do
		ref=""
		for j in 1 2 8 1 8; do
			out="$tmp/out.$format.$j"
			# shellcheck disable=SC2086
			"$tl" --format "$format" $sel -j "$j" $paths >"$out" 2>&1
			if [ -z "$ref" ]; then
				ref=$out.ref
				mv "$out" "$ref"
			elif ! cmp -s "$ref" "$out"; then
				echo "determinism: --format $format ${sel:+$sel }-j $j differs from -j 1:"
				diff "$ref" "$out" | head -10
				fail=1
			fi
		done
	done
done
# Each file alone against its lines in the run over everything (concise).
"$tl" --format concise --select ALL -j 2 $paths >"$tmp/all" 2>/dev/null
checked=0
for f in $(find $paths -name '*.py' | sort); do
	"$tl" --format concise --select ALL "$f" >"$tmp/one" 2>/dev/null
	grep "^$f:" "$tmp/all" >"$tmp/want"
	grep "^$f:" "$tmp/one" >"$tmp/got"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "determinism: $f alone reports differently than among all files:"
		diff "$tmp/want" "$tmp/got" | head -10
		fail=1
	fi
	checked=$((checked + 1))
done
[ "$checked" -gt 50 ] || { echo "determinism: only $checked files checked"; fail=1; }
[ "$fail" = 0 ] && echo "determinism: 3 formats x 2 selections x -j 1/2/8 identical; $checked files alone as among all"
exit $fail
