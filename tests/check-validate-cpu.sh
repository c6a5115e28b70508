#!/bin/sh
# CPU tests of validate/ (validate/test_cpu.py) with a Python that has
# PyTorch: Debian's python3-torch (tests/install-test-deps.sh installs it),
# which the first python3 on PATH may not see (a virtual environment, pyenv).
# usage: check-validate-cpu.sh
set -u
for py in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$py" -c 'import torch' >/dev/null 2>&1; then
		echo "validate-cpu: $("$py" -c 'import sys, torch; print(sys.executable, "torch", torch.__version__)')"
		PYTHONDONTWRITEBYTECODE=1 exec "$py" validate/test_cpu.py
	fi
done
echo "validate-cpu: no python3 with torch (install python3-torch: tests/install-test-deps.sh)" >&2
exit 1
