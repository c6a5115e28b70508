#!/bin/sh
# The semantic model of the file being analysed is interpreted on demand:
# for a question about a function, the module's code and the components of
# the call graph it reaches (analyzer/model/run.c, tl_model__ensure).
# TORCHLINT_MODEL_WHOLE=1 interprets the whole module at once instead. The
# two must give the same findings: over the corpus, the examples and the
# validation cases, every rule selected.
# usage: test-model-demand.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
run "on demand" 1 "$bin" --select ALL --format concise -q corpus examples validate/cases
cp "$tmp/out" "$tmp/demand"
run "whole module" 1 env TORCHLINT_MODEL_WHOLE=1 "$bin" --select ALL --format concise -q corpus examples validate/cases
if [ "$(wc -l <"$tmp/demand")" -lt 500 ]; then
	bad "the corpus gave fewer than 500 findings: $(wc -l <"$tmp/demand")"
elif cmp -s "$tmp/demand" "$tmp/out"; then
	ok "the same $(wc -l <"$tmp/out") findings"
else
	bad "findings differ between the model on demand and the whole module:"
	diff "$tmp/demand" "$tmp/out" | head -20
fi
echo "model-demand: $pass passed, $fail failed"
[ "$fail" = 0 ]
