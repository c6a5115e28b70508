#!/bin/sh
# The hardening matrix (issue 14): hostile inputs, one row each, run through
# the real binary. usage: matrix.sh TORCHLINT [NAME-FILTER]
# (TL_MATRIX_TIMEOUT=N: seconds before a run counts as a hang; default 60.)
#
# Each row is one line:
#
#   row NAME EXIT FRAGMENT BUILDER
#
# BUILDER is a shell function run inside a fresh case directory that already
# holds good.py (a script with two known findings, TL201 and TL101; TL101 is
# opt-in since issue 22, so every run here adds `--extend-select TL101`). It creates the hostile
# input and sets what the run needs:
#   args    paths (and options) passed after good.py;
#   opts    options passed before it (default: none);
#   format  --format (default concise);
#   input   a file or device for standard input (default /dev/null);
#   nogood  1 when good.py is not expected in the report (the run is refused);
#   memlimit  1 to run under `ulimit -v` (skipped for sanitizer builds).
# The run is `torchlint --extend-select TL101 --format FORMAT $opts good.py $args`, under a
# timeout (a hang fails the row). Every row then checks:
#   - the exit status is EXIT;
#   - FRAGMENT (a fixed string; "" for none) is in stdout or stderr;
#   - good.py's findings are byte-identical to a run on good.py alone (its
#     report lines in the text formats, its entries in JSON, SARIF, GitHub);
#   - the terminal formats and stderr hold no ESC byte, and no line outside
#     --format github reads as a GitHub workflow command ("::" or "##[");
#   - JSON and SARIF parse, hold one entry per finding of the summary, and
#     every SARIF ruleIndex points at the rule its ruleId names.
# To add a case: write a builder (mk_...), add a row.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
filter=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
rows=0
ESC=$(printf '\033')
NL='
'
case "$bin" in *asan*) sanitized=1 ;; *) sanitized=0 ;; esac
# Seconds a row may run before it counts as a hang.
limit_s=${TL_MATRIX_TIMEOUT:-60}

cat >"$tmp/good.py" <<'PY'
import torch
import torch.nn as nn

def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
PY

# good.py's findings in FORMAT, from a report on stdin: the lines about it
# (text formats, github) or its entries (json, sarif), one per line.
good_findings() {
	case "$1" in
	json) python3 -c 'import json,sys
for f in json.load(sys.stdin):
    if f["path"] == "good.py": print(json.dumps(f, sort_keys=True))' ;;
	sarif) python3 -c 'import json,sys
run = json.load(sys.stdin)["runs"][0]
for r in run["results"]:
    if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "good.py":
        print(json.dumps(r, sort_keys=True))' ;;
	github) grep -F 'file=good.py,' ;;
	*) LC_ALL=C grep '^good\.py:' ;;
	esac
}

# The baseline: good.py alone, in each format.
for f in concise full json sarif github; do
	(cd "$tmp" && "$bin" --extend-select TL101 --format "$f" good.py 2>/dev/null) | good_findings "$f" >"$tmp/base.$f"
	[ -s "$tmp/base.$f" ] || { echo "matrix: no baseline findings for good.py ($f)"; exit 1; }
done

bad() { fail=$((fail + 1)); echo "FAIL: $name: $*"; }

row() {
	name=$1 want=$2 frag=$3 build=$4
	case "$name" in *"$filter"*) ;; *) return ;; esac
	rows=$((rows + 1))
	d="$tmp/case-$rows"
	mkdir "$d"
	cp "$tmp/good.py" "$d/good.py"
	args= opts= format=concise input=/dev/null nogood=0 memlimit=0 closeout=0
	vars="$d.vars"
	(cd "$d" && "$build") >"$d.build" 2>&1 || { bad "builder $build failed: $(head -3 "$d.build")"; return; }
	# The builder ran in a subshell: it hands its settings back in a file.
	[ -f "$d.vars" ] && . "$d.vars"
	limit=
	if [ "$memlimit" = 1 ]; then
		[ "$sanitized" = 1 ] && { pass=$((pass + 1)); return; } # ASan reserves terabytes of address space
		limit="ulimit -v 1000000;"
	fi
	out=">\"\$d.out\""
	[ "$closeout" = 1 ] && out=">&-" && : >"$d.out"
	(cd "$d" && eval "$limit"' exec timeout "$limit_s" "$bin" --extend-select TL101 --format "$format" '"$opts"' good.py '"$args"' <"$input" '"$out"' 2>"$d.err"')
	got=$?
	ok=1
	if [ "$got" != "$want" ]; then
		ok=0
		bad "exit $got, expected $want"
		sed 's/^/    /' "$d.err" | head -5
	fi
	if [ -n "$frag" ] && ! cat "$d.out" "$d.err" | grep -qF -- "$frag"; then
		ok=0
		bad "'$frag' not in the output"
		cat "$d.out" "$d.err" | sed 's/^/    /' | head -8
	fi
	if [ "$nogood" = 0 ] && [ "$closeout" = 0 ]; then
		if ! good_findings "$format" <"$d.out" 2>/dev/null | cmp -s - "$tmp/base.$format"; then
			ok=0
			bad "good.py's findings differ from its findings alone"
			good_findings "$format" <"$d.out" 2>&1 | diff "$tmp/base.$format" - | head -6 | sed 's/^/    /'
		fi
	fi
	# Terminal text: no raw ESC, no forged workflow command.
	files="$d.err"
	case "$format" in full | concise) files="$files $d.out" ;; esac
	for t in $files; do
		if LC_ALL=C grep -q "$ESC" "$t"; then ok=0; bad "raw ESC in $(basename "$t")"; fi
	done
	[ "$format" = github ] || files="$files $d.out"
	for t in $files; do
		if LC_ALL=C grep -qE '^[[:space:]]*(::|##\[)' "$t"; then
			ok=0
			bad "a workflow command in $(basename "$t")"
		fi
	done
	case "$format" in json | sarif)
		if [ "$closeout" = 0 ] && [ -s "$d.out" ] && ! python3 - "$format" "$d.out" "$d.err" <<'PY'
import json, re, sys
fmt, out, err = sys.argv[1:]
doc = json.load(open(out, encoding="utf-8"))
summary = re.search(r"Found (\d+) finding", open(err, encoding="utf-8", errors="replace").read())
want = int(summary.group(1)) if summary else 0
if fmt == "json":
    got = len(doc)
else:
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for r in run["results"]:
        if ids[r["ruleIndex"]] != r["ruleId"]:
            sys.exit("ruleIndex %d is %s, not %s" % (r["ruleIndex"], ids[r["ruleIndex"]], r["ruleId"]))
    got = len(run["results"])
if got != want:
    sys.exit("%d findings in the document, %d in the summary" % (got, want))
PY
		then ok=0; bad "the $format document is wrong"; fi
	esac
	[ "$ok" = 1 ] && pass=$((pass + 1))
}

# A builder hands settings back with set_var NAME VALUE (single-quoted for
# the shell, so that any byte survives; args and opts are then word lists
# read by eval: quote a name inside them).
set_var() {
	q=$(printf '%s' "$2" | sed "s/'/'\\\\''/g")
	printf "%s='%s'\n" "$1" "$q" >>"$vars"
}

# --- builders: bad bytes ---------------------------------------------------------------
mk_binary() { printf 'import torch\n\000\001\002' >bin.py; set_var args bin.py; }
mk_nul_late() { { cat good.py; printf 'x = 1  # \000\n'; } >nul.py; set_var args nul.py; }
mk_invalid_utf8() { printf 'x = "caf\351"\n' >latin1.py; set_var args latin1.py; }
mk_utf16() { printf '\377\376i\000m\000p\000o\000r\000t\000 \000t\000\n\000' >u16.py; set_var args u16.py; }
mk_utf16_no_bom() { printf 'i\000m\000p\000o\000r\000t\000 \000t\000\n\000' >u16.py; set_var args u16.py; }
mk_utf8_bom() { { printf '\357\273\277'; cat good.py; } >bom.py; set_var args bom.py; }
mk_crlf() { sed 's/$/\r/' good.py >crlf.py; set_var args crlf.py; }
mk_cr_only() { tr '\n' '\r' <good.py >cr.py; set_var args cr.py; }
mk_empty() { : >empty.py; set_var args empty.py; }
# 600 nested blocks: past the grammar's indentation limit (about 510); the
# parse fails from line 1, TL000 points where the limit is hit (issue 26).
mk_deep_blocks() { awk 'BEGIN { print "import torch"; print "x = 1"; for (i = 0; i < 600; i++) { for (k = 0; k < i; k++) printf " "; print "if x:" } for (k = 0; k < 600; k++) printf " "; print "pass" }' >blocks.py; set_var args blocks.py; }
mk_tl000_esc() { printf 'x = (\033[2J\033]0;pwned\007 $$$\n' >esc.py; set_var args esc.py; }
# `from` alone on a line, then `import <600 letters> torch`: the parser's
# error recovery leaves an import-from with an empty module name.
mk_import_empty_module() { printf 'from\nimport %s torch\n' "$(printf '%0600d' 0 | tr 0 a)" >imp.py; set_var args imp.py; }
mk_snippet_ctl() { printf 'x = 1\ny = (\f\033 $$\n' >ctl.py; set_var args ctl.py; set_var format full; }

# --- builders: size and shape ----------------------------------------------------------
mk_too_large() { truncate -s 17M huge.py; set_var args huge.py; }
mk_big() { python3 -c 'import sys
sys.stdout.write("".join("x%d = %d\n" % (i % 50, i) for i in range(40000)))' >big.py; set_var args big.py; }
mk_long_line() { python3 -c 'print("x = [" + "1, " * 50000 + "1]")' >long.py; set_var args long.py; }
mk_deep_list() { python3 -c 'print("x = " + "[" * 10000 + "]" * 10000)' >deep.py; set_var args deep.py; }
mk_deep_parens() { python3 -c 'print("x = " + "(" * 10000 + "1" + ")" * 10000)' >deep.py; set_var args deep.py; }
mk_unclosed() { python3 -c 'print("x = " + "(" * 10000)' >open.py; set_var args open.py; }
mk_many_files() {
	mkdir many
	i=0
	while [ $i -lt 2000 ]; do printf 'x = %d\n' $i >"many/m$i.py"; i=$((i + 1)); done
	set_var args many
}

# --- builders: links, trees, names -----------------------------------------------------
mk_symlink_loop_named() { ln -s loop.py loop.py; set_var args loop.py; }
mk_symlink_loop_walked() { mkdir t && ln -s a.py t/b.py && ln -s b.py t/a.py && ln -s . t/self; set_var args t; }
mk_missing() { set_var args nope.py; }
mk_deep_tree() {
	# Past PATH_MAX (4096): 24 levels of 200-character names.
	seg=$(printf '%0200d' 0)
	(i=0
	 while [ $i -lt 24 ]; do mkdir "$seg" && cd "$seg" || exit 1; i=$((i + 1)); done
	 printf 'x = 1\n' >deep.py)
	set_var args "$seg"
}
mk_name_newline() { cp good.py "$(printf 'a\nb.py')"; set_var args "'$(printf 'a\nb.py')'"; }
mk_name_esc() { cp good.py "$(printf 'c\033[31m.py')"; set_var args "'$(printf 'c\033[31m.py')'"; }
mk_name_ff() { cp good.py "$(printf 'd\377.py')"; set_var args "'$(printf 'd\377.py')'"; }
mk_name_command() { cp good.py '::error file=x::e.py'; set_var args "'::error file=x::e.py'"; }
mk_name_command_missing() { set_var args "'$(printf 'x\n::error file=y::forged')'"; }
mk_show_files_names() {
	mkdir -p "t/$(printf 'a\033[31mb')" "t/$(printf 'n\nl')"
	cp good.py "t/$(printf 'a\033[31mb')/x.py"
	cp good.py "t/$(printf 'n\nl')/y.py"
	set_var opts --show-files
	set_var args t
	set_var nogood 1
}
mk_show_files_newline() { mk_show_files_names; }
mk_names_json() { mk_name_newline; mk_name_ff; set_var args "'$(printf 'a\nb.py')' '$(printf 'd\377.py')'"; set_var format json; }
mk_names_sarif() { mk_names_json; set_var format sarif; }
mk_names_github() { mk_names_json; set_var format github; }
mk_name_esc_github() { mk_name_esc; set_var format github; }
mk_esc_sarif() { mk_tl000_esc; set_var format sarif; }

# --- builders: FIFOs, devices, sockets in every place a file is read ---------------------
mk_fifo_named() { mkfifo f.py; set_var args f.py; }
mk_fifo_notebook() { mkfifo f.ipynb; set_var args f.ipynb; }
mk_fifo_walked() { mkdir t && mkfifo t/f.py && cp good.py t/ok.py; set_var args t; }
mk_fifo_gitignore() { mkdir -p t/.git && mkfifo t/.gitignore && cp good.py t/ok.py; set_var args t; }
mk_fifo_exclude() { mkdir -p t/.git/info && mkfifo t/.git/info/exclude && cp good.py t/ok.py; set_var args t; }
mk_fifo_pyproject() { mkdir t && mkfifo t/pyproject.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_fifo_config() { mkfifo cfg.toml; set_var opts '--config cfg.toml'; set_var nogood 1; }
mk_fifo_rules_toml() { mkdir r && mkfifo r/TL599-x.toml; set_var opts '--rules-dir r'; set_var nogood 1; }
mk_fifo_rules_scm() {
	mkdir r
	printf 'code = "TL599"\nname = "x"\nfamily = "safety"\nseverity = "info"\ndefault = true\nmessage = "m"\n' >r/TL599-x.toml
	mkfifo r/TL599-x.scm
	set_var opts '--rules-dir r'
	set_var nogood 1
}
mk_dev_null() { set_var args /dev/null; }
mk_dev_zero() { set_var args /dev/zero; }
mk_socket() {
	python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("s.py")'
	set_var args s.py
}
mk_stdin_zero() { set_var args -; set_var input /dev/zero; set_var memlimit 1; }
mk_stdin_big() { head -c 20000000 /dev/zero | tr '\0' 'x' >big.txt; set_var args -; set_var input big.txt; }
mk_stdin_binary() { printf '\000\001' >b.bin; set_var args -; set_var input b.bin; }

# --- builders: notebooks ------------------------------------------------------------------
nb_good() {
	python3 - "$1" "$2" <<'PY'
import json, sys
src = open("good.py").read().splitlines(keepends=True)
nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": src, "outputs": [],
                 "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
text = json.dumps(nb)
if sys.argv[2] == "escaped":
    text = text.replace('"source"', '"sour\\u0063e"').replace('"cells"', '"c\\u0065lls"')
open(sys.argv[1], "w").write(text)
PY
}
mk_nb_escaped_keys() { nb_good e.ipynb escaped; set_var args e.ipynb; }
mk_nb_invalid_json() { printf '{"cells": [' >b.ipynb; set_var args b.ipynb; }
mk_nb_no_cells() { printf '{"metadata": {}}' >b.ipynb; set_var args b.ipynb; }
mk_nb_cell_no_source() { printf '{"cells": [{"cell_type": "code"}]}' >b.ipynb; set_var args b.ipynb; }
mk_nb_duplicate_key() { printf '{"cells": [{"cell_type": "code", "source": "x = 1", "source": "y"}]}' >b.ipynb; set_var args b.ipynb; }
mk_nb_nul() { printf '{"cells": [{"cell_type": "code", "source": "x\\u0000"}]}' >b.ipynb; set_var args b.ipynb; }
mk_nb_deep() { python3 -c 'print("{\"cells\": [], \"metadata\": " + "[" * 10000 + "]" * 10000 + "}")' >b.ipynb; set_var args b.ipynb; }
mk_nb_invalid_utf8() { printf '{"cells": [{"cell_type": "code", "source": "x = \351"}]}' >b.ipynb; set_var args b.ipynb; }
mk_nb_not_object() { printf '[1, 2]' >b.ipynb; set_var args b.ipynb; }

# --- builders: configurations and user rules -----------------------------------------------
# A configuration that cannot be used stops the run before any file is
# analysed (as ruff does): those rows expect no findings at all.
mk_cfg_bad_toml() { mkdir t && printf '[tool.torchlint\nselect = [' >t/pyproject.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_cfg_unknown_key() { mkdir t && printf 'frobnicate = 1\n' >t/torchlint.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_cfg_invalid_utf8() { mkdir t && printf 'select = ["TL1\351"]\n' >t/torchlint.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_cfg_deep() { mkdir t && python3 -c 'print("select = " + "[" * 10000 + "]" * 10000)' >t/torchlint.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_cfg_esc_key() { mkdir t && printf '"\\u001b[2Jx" = 1\n' >t/torchlint.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var nogood 1; }
mk_rules_esc_help() {
	mkdir r
	printf 'code = "TL599"\nname = "x"\nfamily = "safety"\nseverity = "info"\ndefault = true\nmessage = "m"\nhelp = "see \\u001b[31mred"\n' >r/TL599-x.toml
	printf '((call function: (identifier) @_fn) @finding (#eq? @_fn "print"))\n' >r/TL599-x.scm
	printf 'print(1)\n' >p.py
	set_var opts '--rules-dir r'
	set_var args p.py
	set_var format full
}

# --- builders: where the report goes ---------------------------------------------------------
mk_out_is_input() { set_var opts '-o good.py'; set_var nogood 1; }
mk_out_symlink_to_input() { ln -s good.py link.txt; set_var opts '-o link.txt'; set_var nogood 1; }
mk_out_hardlink_to_input() { ln good.py hard.txt; set_var opts '-o hard.txt'; set_var nogood 1; }
mk_out_is_config() { mkdir t && printf 'ignore = []\n' >t/torchlint.toml && cp good.py t/ok.py; set_var args t/ok.py; set_var opts '-o t/torchlint.toml'; set_var nogood 1; }
mk_out_is_rule() {
	mkdir r
	printf 'code = "TL599"\nname = "x"\nfamily = "safety"\nseverity = "info"\ndefault = true\nmessage = "m"\nhelp = "h"\n' >r/TL599-x.toml
	printf '((call function: (identifier) @_fn) @finding (#eq? @_fn "print"))\n' >r/TL599-x.scm
	set_var opts '--rules-dir r -o r/TL599-x.scm'
	set_var nogood 1
}
mk_out_full() { set_var opts '-o /dev/full'; set_var nogood 1; }
mk_stdout_closed() { set_var closeout 1; }

# --- the matrix ---------------------------------------------------------------------------------
#   NAME                     EXIT FRAGMENT                                             BUILDER
row binary                   2 "cannot analyse 'bin.py': binary file"                mk_binary
row nul-late                 2 "binary file (contains NUL bytes)"                    mk_nul_late
row invalid-utf8             2 "not valid UTF-8 (byte 0xE9 at line 1, column 9)"     mk_invalid_utf8
row utf16-bom                2 "UTF-16 text (byte-order mark 0xFF 0xFE)"             mk_utf16
row utf16-no-bom             2 "binary file (contains NUL bytes)"                    mk_utf16_no_bom
row utf8-bom                 1 "bom.py:12:9: TL101"                                  mk_utf8_bom
row crlf                     1 "crlf.py:12:9: TL101"                                 mk_crlf
row cr-only                  1 "cr.py:12:9: TL101"                                   mk_cr_only
row empty                    1 "2 files checked"                                     mk_empty
row deep-blocks              1 'blocks.py:514:512: TL000 syntax error: blocks nested more than 510 deep' mk_deep_blocks
row tl000-quotes-esc         1 'cannot parse `x = (\x1B[2J\x1B]0;pwned\x07 $$$`'     mk_tl000_esc
row tl000-esc-sarif          1 '"text": "syntax error: cannot parse'                 mk_esc_sarif
row import-empty-module      1 "imp.py:1:5: TL000 syntax error"                      mk_import_empty_module
row snippet-control-pictures 1 "y = (␌␛ \$\$"                                        mk_snippet_ctl
row too-large                2 "file too large (17825792 bytes; the limit is"        mk_too_large
row big-file                 1 "2 files checked"                                     mk_big
row long-line                1 "2 files checked"                                     mk_long_line
row deep-list                1 "2 files checked"                                     mk_deep_list
row deep-parens              1 "2 files checked"                                     mk_deep_parens
row deep-unclosed            1 "open.py:1:1: TL000"                                  mk_unclosed
row many-files               1 "of 2001 files checked"                               mk_many_files
row symlink-loop-named       2 "cannot read 'loop.py': Too many levels of symbolic links" mk_symlink_loop_named
row symlink-loop-walked      1 "1 of 1 file checked"                                 mk_symlink_loop_walked
row missing                  2 "cannot read 'nope.py': No such file or directory"    mk_missing
row deep-tree                2 "path too long (the system limit is 4096 bytes)"      mk_deep_tree
row name-newline             1 'a\nb.py:12:9: TL101'                                 mk_name_newline
row name-esc                 1 'c\x1B[31m.py:12:9: TL101'                            mk_name_esc
row name-0xff                1 'd\xFF.py:12:9: TL101'                                mk_name_ff
row name-command             1 './::error file=x::e.py:12:9: TL101'                  mk_name_command
row name-command-stderr      2 "cannot read 'x\n::error file=y::forged'"             mk_name_command_missing
row show-files-esc           0 't/a\x1B[31mb/x.py'                                  mk_show_files_names
row show-files-newline       0 't/n\nl/y.py'                                        mk_show_files_newline
row names-json               1 '"path": "d\uFFFD.py"'                                mk_names_json
row names-sarif              1 '"uri": "d%FF.py"'                                    mk_names_sarif
row names-github             1 'file=a%0Ab.py,line=12'                               mk_names_github
row name-esc-github          1 'file=c%1B[31m.py,line=12'                            mk_name_esc_github
row fifo-named               2 "cannot read 'f.py': not a regular file"              mk_fifo_named
row fifo-notebook            2 "cannot read 'f.ipynb': not a regular file"           mk_fifo_notebook
row fifo-walked              2 "cannot read 't/f.py': not a regular file"            mk_fifo_walked
row fifo-gitignore           2 "/t/.gitignore': not a regular file"                  mk_fifo_gitignore
row fifo-git-info-exclude    2 "/t/.git/info/exclude': not a regular file"           mk_fifo_exclude
row fifo-pyproject           2 "pyproject.toml': not a regular file"                 mk_fifo_pyproject
row fifo-config              2 "cannot read configuration 'cfg.toml': not a regular file" mk_fifo_config
row fifo-rules-toml          2 "cannot read 'r/TL599-x.toml': not a regular file"    mk_fifo_rules_toml
row fifo-rules-scm           2 "cannot read 'r/TL599-x.scm': not a regular file"     mk_fifo_rules_scm
row dev-null                 2 "cannot read '/dev/null': not a regular file"         mk_dev_null
row dev-zero                 2 "cannot read '/dev/zero': not a regular file"         mk_dev_zero
row socket                   2 "cannot read 's.py': not a regular file"              mk_socket
row stdin-dev-zero           2 "cannot analyse '-': file too large"                  mk_stdin_zero
row stdin-over-limit         2 "cannot analyse '-': file too large"                  mk_stdin_big
row stdin-binary             2 "cannot analyse '-': binary file"                     mk_stdin_binary
row nb-escaped-keys          1 "e.ipynb:cell 1:12:9: TL101"                          mk_nb_escaped_keys
row nb-invalid-json          1 "b.ipynb:1:11: TL000 invalid notebook JSON"           mk_nb_invalid_json
row nb-no-cells              1 "TL000 not a notebook: no \"cells\" list"             mk_nb_no_cells
row nb-cell-no-source        1 "TL000 not a notebook: cell 1 has no cell_type"       mk_nb_cell_no_source
row nb-duplicate-key         1 "duplicate object key"                                mk_nb_duplicate_key
row nb-nul                   1 "TL000 invalid notebook JSON"                         mk_nb_nul
row nb-deep                  1 "TL000 invalid notebook JSON"                         mk_nb_deep
row nb-invalid-utf8          2 "not valid UTF-8"                                     mk_nb_invalid_utf8
row nb-not-object            1 "b.ipynb:1:1: TL000 not a notebook"                   mk_nb_not_object
row cfg-bad-toml             2 "pyproject.toml:1:"                                   mk_cfg_bad_toml
row cfg-unknown-key          2 "frobnicate"                                          mk_cfg_unknown_key
row cfg-invalid-utf8         2 "not valid UTF-8"                                     mk_cfg_invalid_utf8
row cfg-deep                 2 "torchlint.toml:1:"                                   mk_cfg_deep
row cfg-esc-key              2 '\x1B[2Jx'                                            mk_cfg_esc_key
row rules-esc-help           1 '= help: see \x1B[31mred'                             mk_rules_esc_help
row out-is-input             2 "cannot write the report to 'good.py': it is the input 'good.py'" mk_out_is_input
row out-symlink-to-input     2 "it is the input 'good.py'"                           mk_out_symlink_to_input
row out-hardlink-to-input    2 "it is the input 'good.py'"                           mk_out_hardlink_to_input
row out-is-config            2 "it is the input"                                     mk_out_is_config
row out-is-rule              2 "it is the input 'r/TL599-x.scm'"                     mk_out_is_rule
row out-dev-full             2 "cannot write '/dev/full': No space left on device"   mk_out_full
row stdout-closed            2 "cannot write to standard output: Bad file descriptor" mk_stdout_closed

echo "hardening matrix: $pass passed, $fail failed ($rows rows)"
[ "$fail" = 0 ] && [ "$rows" -gt 0 ]
