#!/bin/sh
# The language server's tests with a ThreadSanitizer build (make lsp-tsan):
# the protocol thread and the analysis worker must share nothing without
# synchronisation. Every report TSan writes (one file per process, under a
# temporary folder) fails the run, and is printed.
# Usage: tests/lsp/test-tsan.sh BUILD/torchlint-tsan [test_name ...]
set -u
bin=${1:?usage: test-tsan.sh TORCHLINT-TSAN [test_name ...]}
shift
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Timings under TSan say nothing (--quick skips the timing checks that
# can); waits get a wider margin.
TSAN_OPTIONS="log_path=$logs/tsan second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
TORCHLINT_TIMEOUT_SCALE=${TORCHLINT_TIMEOUT_SCALE:-5} \
	python3 tests/lsp/test-server.py "$bin" --quick "$@"
status=$?
reports=$(ls "$logs" | wc -l)
for f in "$logs"/*; do
	[ -e "$f" ] && cat "$f"
done
echo "lsp under ThreadSanitizer: $reports report(s), tests exit status $status"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
