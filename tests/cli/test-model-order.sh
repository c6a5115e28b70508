#!/bin/sh
# The semantic model of a file is interpreted as questions need it
# (analyzer/model/run.c, tl_model__ensure): which questions come first
# depends on which rules are selected and on the order they ask. The answers
# must not. Over the corpus, the examples and the validation cases:
#   - for every rule R, the findings of `--select R` are the findings of
#     code R that `--select ALL` reports (TL001, unused noqa, excepted: it
#     is about which rules ran);
#   - every value `torchlint debug model FILE` prints (it asks the model
#     function by function) is the same with TORCHLINT_MODEL_WHOLE=1, which
#     interprets the whole module before the first question.
# (test-model-demand.sh compares the findings of the two modes.)
# usage: test-model-order.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
paths="corpus examples validate/cases"

# code R's findings of a concise report on stdin
only() { grep -E "^[^ ]+:[0-9]+:[0-9]+: $1 " || true; }

run "every rule" 1 "$bin" --select ALL --format concise -q $paths
cp "$tmp/out" "$tmp/all"
"$bin" --list-rules | awk 'NR > 1 { print $1 }' >"$tmp/codes"
total=0
rules=0
for code in $(cat "$tmp/codes"); do
	[ "$code" = TL001 ] && continue
	"$bin" --select "$code" --format concise -q $paths >"$tmp/one" 2>"$tmp/err"
	rc=$?
	if [ $rc -gt 1 ]; then
		bad "--select $code: exit $rc"
		sed 's/^/    /' "$tmp/err" | head -5
		continue
	fi
	only "$code" <"$tmp/one" >"$tmp/alone"
	only "$code" <"$tmp/all" >"$tmp/among"
	if cmp -s "$tmp/alone" "$tmp/among"; then
		ok
		rules=$((rules + 1))
		total=$((total + $(wc -l <"$tmp/alone")))
	else
		bad "$code: --select $code and --select ALL differ (<: alone, >: among all):"
		diff "$tmp/alone" "$tmp/among" | head -10
	fi
done
# The comparison must have had findings to compare.
if [ "$total" -lt 500 ]; then
	bad "only $total findings over $rules rules"
else
	ok
fi

# The model's values, function by function, against the whole module's.
find $paths -name '*.py' -type f | sort >"$tmp/files"
files=0
differ=0
while read -r f; do
	"$bin" debug model "$f" 2>/dev/null | grep -v '^#' >"$tmp/demand"
	TORCHLINT_MODEL_WHOLE=1 "$bin" debug model "$f" 2>/dev/null | grep -v '^#' >"$tmp/whole"
	files=$((files + 1))
	if ! cmp -s "$tmp/demand" "$tmp/whole"; then
		differ=$((differ + 1))
		bad "debug model $f: on demand (<) and whole module (>) differ:"
		diff "$tmp/demand" "$tmp/whole" | head -6
	fi
done <"$tmp/files"
if [ "$files" -lt 300 ]; then
	bad "only $files files compared"
elif [ "$differ" = 0 ]; then
	ok
fi
echo "model-order: $pass passed, $fail failed ($rules rules, $total findings, $files files)"
[ "$fail" = 0 ]
