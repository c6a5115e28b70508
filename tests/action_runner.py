#!/usr/bin/env python3
"""Runs a composite GitHub Action's steps here, as a runner would, for tests.

    action_runner.py ACTION_YML WORKSPACE [NAME=VALUE ...]

Supports the subset action.yml uses, and refuses anything else: inputs with
defaults, `${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}` in env:,
with: and working-directory:, `if:` as `&&` of `X == 'value'` terms, run:
steps with `shell: bash` (run as GitHub does: bash --noprofile --norc -eo
pipefail), GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP and GITHUB_ACTION_PATH
(the folder of ACTION_YML), and uses: steps,
which are not run but printed as `uses: ACTION with {...}`. A step that
fails skips the later ones (no always()). Prints `outcome: success|failure`
and each action output; exits 0 on success, 1 on failure, 2 on an action
file it cannot run.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


class Unsupported(Exception):
    pass


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        action = yaml.safe_load(f)
    workspace = os.path.abspath(argv[1])
    inputs = {k: str(v.get("default", "")) for k, v in (action.get("inputs") or {}).items()}
    for a in argv[2:]:
        k, _, v = a.partition("=")
        if k not in inputs:
            print("action_runner: the action has no input '%s'" % k, file=sys.stderr)
            return 2
        inputs[k] = v
    outputs = {}

    def value(expr):
        m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", expr)
        if m:
            if m.group(1) not in inputs:
                raise Unsupported("unknown input '%s'" % m.group(1))
            return inputs[m.group(1)]
        m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
        if m:
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        raise Unsupported("expression '%s'" % expr)

    def subst(text):
        return EXPR.sub(lambda m: value(m.group(1)), str(text))

    def condition(cond):
        cond = EXPR.sub(lambda m: m.group(1), cond.strip())
        for term in cond.split("&&"):
            m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*==\s*'([^']*)'\s*", term)
            if not m:
                raise Unsupported("condition '%s'" % term.strip())
            if value(m.group(1)) != m.group(2):
                return False
        return True

    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        print("action_runner: not a composite action", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="action-runner-")
    runner_temp = os.environ.get("RUNNER_TEMP") or os.path.join(tmp, "runner-temp")
    os.makedirs(runner_temp, exist_ok=True)
    path_file = os.path.join(tmp, "path")
    open(path_file, "w").close()
    outcome = "success"
    try:
        for i, step in enumerate(runs.get("steps") or []):
            unknown = set(step) - {"name", "id", "if", "shell", "env", "run", "uses", "with", "working-directory"}
            if unknown:
                raise Unsupported("step keys %s" % sorted(unknown))
            sid = step.get("id", "step%d" % i)
            if "if" in step and not condition(step["if"]):
                print("skipped: %s" % step.get("name", sid))
                continue
            if "uses" in step:
                print("uses: %s with %s" % (step["uses"], json.dumps({k: subst(v) for k, v in (step.get("with") or {}).items()}, sort_keys=True)))
                continue
            if step.get("shell") != "bash":
                raise Unsupported("a run step without shell: bash")
            out_file = os.path.join(tmp, "out-%d" % i)
            open(out_file, "w").close()
            env = dict(os.environ)
            extra = [p.strip() for p in open(path_file) if p.strip()]
            env["PATH"] = os.pathsep.join(list(reversed(extra)) + [env.get("PATH", "")])
            env.update({"GITHUB_OUTPUT": out_file, "GITHUB_PATH": path_file, "RUNNER_TEMP": runner_temp,
                        "GITHUB_WORKSPACE": workspace, "GITHUB_ACTIONS": "true",
                        "GITHUB_ACTION_PATH": os.path.dirname(os.path.abspath(argv[0]))})
            env.update({k: subst(v) for k, v in (step.get("env") or {}).items()})
            cwd = os.path.join(workspace, subst(step.get("working-directory", ".")))
            script = os.path.join(tmp, "step-%d.sh" % i)
            with open(script, "w") as f:
                f.write(step["run"])
            print("run: %s" % step.get("name", sid), flush=True)
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd, env=env)
            outs = {}
            for line in open(out_file):
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    outs[k] = v
            outputs[sid] = outs
            if rc != 0:
                print("step failed: %s (exit %d)" % (step.get("name", sid), rc))
                outcome = "failure"
                break
        print("outcome: %s" % outcome)
        for k, v in (action.get("outputs") or {}).items():
            print("output %s=%s" % (k, subst(v.get("value", ""))))
    except Unsupported as e:
        print("action_runner: unsupported: %s" % e, file=sys.stderr)
        return 2
    return 0 if outcome == "success" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
