#!/bin/sh
# Runs every test suite and ends with one summary line:
#   "tests: N passed, M failed"  (N, M count suites)
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
suite() {
	name=$1
	shift
	echo "== $name"
	if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== $name FAILED"; fi
}
suite "no compiler warnings (-Wall -Wextra -Werror)" make --no-print-directory -s check-warnings
suite "layers (includes only downward, no cycles)" python3 tests/check-layers.py analyzer
for t in build/unit/test_*; do
	[ -x "$t" ] && suite "unit $(basename "$t")" "$t"
done
for t in build/unit-asan/test_*; do
	[ -x "$t" ] && suite "unit (asan+ubsan) $(basename "$t")" "$t"
done
suite "corpus" tests/check-corpus.sh ./torchlint corpus
suite "corpus (asan+ubsan)" tests/check-corpus.sh build/torchlint-asan corpus
# Under valgrind: memory errors and leaks exit 99; findings (exit 1) are expected.
memcheck() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		./torchlint -q --select ALL -j 2 corpus examples >/dev/null
	[ $? -le 1 ] || return 1
	# The machine formats, a notebook and a configuration file too.
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		./torchlint -q --format sarif --config tests/fixtures/torchlint.toml \
		corpus/scripts tests/fixtures/notebook.ipynb >/dev/null
	[ $? -le 1 ]
}
suite "corpus (valgrind)" memcheck
suite "cli" tests/cli/test-cli.sh ./torchlint
suite "cli (asan+ubsan)" tests/cli/test-cli.sh build/torchlint-asan
suite "debug model (what the API table says of each call)" tests/cli/test-debug.sh ./torchlint
suite "debug model (asan+ubsan)" tests/cli/test-debug.sh build/torchlint-asan
suite "limits" tests/cli/test-limits.sh ./torchlint
suite "limits (asan+ubsan)" tests/cli/test-limits.sh build/torchlint-asan
suite "growth (1x and 8x inputs per generator)" tests/cli/test-growth.sh ./torchlint
suite "ecosystem" tests/cli/test-ecosystem.sh ./torchlint
suite "ecosystem (asan+ubsan)" tests/cli/test-ecosystem.sh build/torchlint-asan
suite "ecosystem check tool (ledger comparison, extraction)" tests/check-ecosystem-tool.sh ./torchlint
# Hostile inputs (issue 14): one row per case, tests/hardening/matrix.sh.
suite "hardening matrix" tests/hardening/matrix.sh ./torchlint
suite "hardening matrix (asan+ubsan)" tests/hardening/matrix.sh build/torchlint-asan
suite "determinism (threads, runs, one file alone)" tests/check-determinism.sh ./torchlint
suite "projects (imports across modules)" tests/cli/test-project.sh ./torchlint
suite "the model on demand gives what the whole module gives" tests/cli/test-model-demand.sh ./torchlint
suite "the model's answers do not depend on which rule asks first" tests/cli/test-model-order.sh ./torchlint
suite "projects (asan+ubsan)" tests/cli/test-project.sh build/torchlint-asan
suite "new-user paths (config, noqa, SARIF, CLI, fixes)" tests/cli/test-newuser.sh ./torchlint
suite "new-user paths (asan+ubsan)" tests/cli/test-newuser.sh build/torchlint-asan
suite "fix writes (links, hard links, leftovers, failures)" tests/cli/test-fixwrite.sh ./torchlint
suite "fix writes (asan+ubsan)" tests/cli/test-fixwrite.sh build/torchlint-asan
suite "conventions (check, --select names, --show-settings DIR, --fail-on, ...)" tests/cli/test-conventions.sh ./torchlint
suite "conventions (asan+ubsan)" tests/cli/test-conventions.sh build/torchlint-asan
suite "fix fixtures (tests/fixes)" tests/check-fixes.sh ./torchlint
suite "fix fixtures (asan+ubsan)" tests/check-fixes.sh build/torchlint-asan
suite "sarif" tests/check-sarif.sh ./torchlint
suite "gitlab and junit formats (schemas), repository-relative paths" tests/check-ci-formats.sh ./torchlint
suite "gitlab and junit formats (asan+ubsan)" tests/check-ci-formats.sh build/torchlint-asan
# The language server: a scripted stdio client (protocol, bad input, UTF-16,
# edits, configuration, notebooks, hover, code actions, 10,000 edits of
# memory), the same under ASan+UBSan (LeakSanitizer fails the exit status)
# and valgrind, then Neovim's built-in client and Emacs's eglot end to end.
suite "lsp" python3 tests/lsp/test-server.py ./torchlint
suite "lsp (asan+ubsan)" python3 tests/lsp/test-server.py build/torchlint-asan --quick
lsp_valgrind() {
	TORCHLINT_TIMEOUT_SCALE=30 \
	TORCHLINT_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
		python3 tests/lsp/test-server.py ./torchlint --quick test_lifecycle_and_bad_input \
		test_diagnostics test_notebooks test_code_actions test_project_callers
}
suite "lsp (valgrind)" lsp_valgrind
suite "lsp: neovim end to end" python3 tests/lsp/test-nvim.py ./torchlint
suite "lsp: emacs eglot end to end" python3 tests/lsp/test-emacs.py ./torchlint
# The self-contained binary, make dist, the wheel in a fresh venv (before
# pre-commit, whose mirror hook installs that wheel).
suite "packaging (binary needs, sdist, wheel)" tests/check-packaging.sh ./torchlint
suite "pre-commit" tests/check-precommit.sh ./torchlint
suite "GitHub Action (action.yml, run locally)" tests/check-action.sh ./torchlint
suite "fuzz (saved crash inputs, then 8 s per target, 45 s for rules)" make --no-print-directory -s fuzz-smoke
suite "stems" tests/check-stems.sh ./torchlint
suite "rule pages (generated docs up to date, plots, helpUri, --explain links)" tests/check-rule-docs.sh ./torchlint
suite "docs site (mkdocs --strict, nav, links, anchors, offline, figures, references)" tests/check-docs.sh ./torchlint
# validate/: the reproductions as lint tests, the generated evidence that
# --explain cites, the default-on rules' evidence, what a CPU can show
# (PyTorch on the CPU), and the CUDA microbenchmarks (compiled only, when nvcc
# is here: no test needs a GPU).
suite "validate: cases as lint tests" tests/check-validate-lint.sh ./torchlint
suite "validate: report and --explain evidence" tests/check-validate-explain.sh ./torchlint
suite "validate: default-on rules have evidence" python3 validate/check_evidence.py ./torchlint
suite "validate: CPU reproductions" tests/check-validate-cpu.sh
suite "validate: CUDA microbenchmarks compile" make --no-print-directory -s validate-cuda
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
