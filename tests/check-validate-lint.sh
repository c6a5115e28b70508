#!/bin/sh
# The reproductions in validate/cases/ are lint tests too. For every case
# whose rule this build implements:
#   - flagged.py is reported with exactly that code, on exactly the lines
#     that follow its "# expect: CODE" annotations (and nothing else);
#   - fixed.py is clean;
#   - the two files differ only in the pitfall: at most MAX_CHANGED changed
#     lines in `diff` (the pitfall and its annotation).
# A case whose rule is not in `torchlint --list-rules` is skipped, visibly.
# usage: check-validate-lint.sh TORCHLINT
set -u
bin=$1
MAX_CHANGED=6
pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" --list-rules | awk 'NR > 1 { print $1 }' >"$tmp/codes"
for dir in validate/cases/TL*; do
	code=$(basename "$dir")
	flagged=$dir/flagged.py
	fixed=$dir/fixed.py
	if [ ! -f "$flagged" ] || [ ! -f "$fixed" ]; then
		bad "$code: $dir lacks flagged.py or fixed.py"
		continue
	fi
	changed=$(diff "$flagged" "$fixed" | grep -c '^[<>]')
	if [ "$changed" -ge 1 ] && [ "$changed" -le $MAX_CHANGED ]; then ok; else
		bad "$code: flagged.py and fixed.py differ in $changed lines (expected 1 to $MAX_CHANGED)"
	fi
	if ! grep -qx "$code" "$tmp/codes"; then
		echo "skipped $code: rule not implemented in this build"
		skip=$((skip + 1))
		continue
	fi
	# Lines that must be reported: the first code line after each annotation.
	awk -v c="$code" '
		$0 ~ "^[ \t]*# expect: *" c "[ \t]*$" { want = 1; next }
		want && $0 ~ /[^ \t]/ && $0 !~ /^[ \t]*#/ { print FNR " " c; want = 0 }
	' "$flagged" | sort >"$tmp/want"
	if [ ! -s "$tmp/want" ]; then
		bad "$code: flagged.py has no '# expect: $code' annotation"
		continue
	fi
	"$bin" --select "$code" --format concise --color never -q "$flagged" >"$tmp/out" 2>"$tmp/err"
	status=$?
	# path:line:col: CODE message
	sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: \(TL[0-9]*\) .*/\1 \2/p' "$tmp/out" | sort >"$tmp/got"
	if [ $status -eq 1 ] && cmp -s "$tmp/want" "$tmp/got"; then ok; else
		bad "$code: $flagged (exit $status) expected findings 'line code':"
		sed 's/^/    want /' "$tmp/want"
		sed 's/^/    got  /' "$tmp/got"
		cat "$tmp/err"
	fi
	"$bin" --select "$code" --format concise --color never -q "$fixed" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ $status -eq 0 ] && [ ! -s "$tmp/out" ]; then ok; else
		bad "$code: $fixed must be clean (exit $status):"
		cat "$tmp/out" "$tmp/err"
	fi
done
echo "validate-lint: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
