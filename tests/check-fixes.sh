#!/bin/sh
# Fix fixtures: tests/fixes/CODE/CASE.py is fixed with
# `torchlint --isolated --select CODE --fix [CASE.args]` and must become
# CASE.expected.py byte for byte; re-linting the result must give no CODE
# finding (unless the case expects no change: then the file stays as it
# is). --diff on the input must print a patch that turns it into the
# expected file, and exit 1 exactly when there is something to fix.
# Notebooks (CASE.ipynb) are fixed inside their cells the same way.
# usage: check-fixes.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

for input in "$root"/tests/fixes/*/*.py "$root"/tests/fixes/*/*.ipynb; do
	[ -f "$input" ] || continue
	case $input in *.expected.*) continue ;; esac
	dir=$(dirname "$input")
	code=$(basename "$dir")
	ext=${input##*.}
	case_=$(basename "$input" ".$ext")
	expected="$dir/$case_.expected.$ext"
	args=$(cat "$dir/$case_.args" 2>/dev/null)
	name="$code/$case_.$ext"
	[ -f "$expected" ] || { bad "$name: no $case_.expected.$ext"; continue; }
	work="$tmp/$code"
	mkdir -p "$work"
	cp "$input" "$work/$case_.$ext"
	# --diff: exit 1 when there is something to fix, and a patch that applies.
	# shellcheck disable=SC2086
	(cd "$work" && "$bin" --isolated --select "$code" $args --diff "$case_.$ext" >"$tmp/diff" 2>"$tmp/err")
	status=$?
	if cmp -s "$input" "$expected"; then want=0; else want=1; fi
	if [ $status = $want ]; then ok; else bad "$name: --diff exit $status, expected $want"; cat "$tmp/err"; fi
	if [ $want = 1 ]; then
		cp "$input" "$tmp/patched"
		if patch -s "$tmp/patched" <"$tmp/diff" >/dev/null 2>&1 && cmp -s "$tmp/patched" "$expected"; then ok; else
			bad "$name: the --diff output does not turn the input into the expected file"; cat "$tmp/diff"; fi
	fi
	cmp -s "$input" "$work/$case_.$ext" && ok || bad "$name: --diff changed the file"
	# --fix writes the expected file.
	# shellcheck disable=SC2086
	(cd "$work" && "$bin" --isolated --select "$code" $args --fix "$case_.$ext" >"$tmp/out" 2>"$tmp/err")
	status=$?
	if [ $status -le 1 ]; then ok; else bad "$name: --fix exit $status"; cat "$tmp/err"; fi
	if cmp -s "$work/$case_.$ext" "$expected"; then ok; else
		bad "$name: fixed file differs from the expected one"; diff -u "$expected" "$work/$case_.$ext" | head -20; fi
	# Re-linting the fixed file: no finding of that rule is left.
	if [ $want = 1 ]; then
		# shellcheck disable=SC2086
		"$bin" --isolated --select "$code" $args --format concise "$work/$case_.$ext" >"$tmp/relint" 2>/dev/null
		if grep -q " $code " "$tmp/relint"; then bad "$name: re-linting the fixed file still finds $code"; cat "$tmp/relint"; else ok; fi
	fi
	rm -rf "$work"
done

echo "fixes: $pass passed, $fail failed"
[ "$fail" = 0 ]
