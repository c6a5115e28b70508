"""python -m torchlint ARGS: runs the installed binary with ARGS."""
import os
import sys

from torchlint import find_torchlint_bin


def main():
    try:
        path = find_torchlint_bin()
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    if os.name == "posix":
        os.execv(path, [path, *sys.argv[1:]])
    import subprocess
    return subprocess.call([path, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
