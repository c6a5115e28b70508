#!/bin/bash
# The sizes of the hardening issue, for a sanitizer build (not in
# `make test`: minutes under ASan). Each input is generated, analysed with
# a wall-clock limit, and must end with exit 0, 1 or 2 (2 only with a
# TL002 or "file too large" message), no sanitizer report, in bounded
# time and memory. Prints one line per input: exit, seconds, peak RSS.
# usage: big-inputs.sh TORCHLINT [TIMEOUT_SECONDS]
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
limit=${2:-900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

gen() { # gen NAME: writes the input to $tmp/NAME.py
	case $1 in
	chain3k) python3 -c 'print("import torch\nx = f(x)" + ".f(x)" * 3000)' ;;
	chain200k) python3 -c 'print("import torch\nx = f(x)" + ".f(x)" * 200000)' ;;
	chain2m) python3 -c 'print("import torch\nx = f(x)" + ".f(x)" * 2000000)' ;;
	line10m-calls) python3 -c 'print("import torch\ny = [" + "torch.tensor(1), " * 620000 + "]")' ;;
	line10m-list) python3 -c 'print("import torch\ndata = [" + "1, " * 3400000 + "]")' ;;
	file50m) python3 -c '
import sys
body = "import torch\n" + "loss = model(x).sum()\nloss.backward()\n" * 1500000
sys.stdout.write(body)' ;;
	file15m-lines) python3 -c '
import sys
sys.stdout.write("import torch\n" + "for x, y in loader:\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n" * 200000)' ;;
	nest10k-calls) python3 -c 'print("import torch\ny = " + "f(" * 10000 + "x" + ")" * 10000)' ;;
	nest10k-lists) python3 -c 'print("import torch\ny = " + "[" * 10000 + "]" * 10000)' ;;
	nest10k-open) python3 -c 'print("import torch\ny = " + "f(" * 10000)' ;;
	esac >"$tmp/$1.py"
}

for name in chain3k chain200k chain2m line10m-calls line10m-list file50m file15m-lines \
	nest10k-calls nest10k-lists nest10k-open; do
	gen "$name"
	size=$(wc -c <"$tmp/$name.py")
	start=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$tmp/rss" timeout "$limit" "$bin" -q --select ALL --format concise \
		"$tmp/$name.py" >"$tmp/out" 2>"$tmp/err"
	status=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	rss=$(tail -1 "$tmp/rss" 2>/dev/null)
	why=ok
	if grep -q 'Sanitizer\|runtime error' "$tmp/err"; then why="sanitizer report"
	elif [ $status -ge 124 ]; then why="timeout or killed ($status)"
	elif [ $status = 2 ] && ! grep -q 'TL002\|file too large' "$tmp/out" "$tmp/err"; then why="exit 2 without a limit message"
	elif [ $status -gt 2 ]; then why="exit $status"
	fi
	note=$(grep -ho 'TL002 analysis stopped[^(]*\|file too large' "$tmp/out" "$tmp/err" | head -1)
	echo "big $name ($size bytes): exit $status, ${secs}s, peak RSS ${rss:-?} KB${note:+, $note}: $why"
	if [ "$why" = ok ]; then pass=$((pass + 1)); else fail=$((fail + 1)); head -30 "$tmp/err"; fi
done
echo "big: $pass passed, $fail failed"
[ "$fail" = 0 ]
