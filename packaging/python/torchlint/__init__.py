"""torchlint: a static analyzer for PyTorch training scripts.

The analyzer is a native binary that the wheel installs into the scripts
folder (next to `pip`); this package only finds it, for `python -m torchlint`
and for tools that want its path.
"""
import os
import sys
import sysconfig


def find_torchlint_bin():
    """The path of the installed torchlint binary; FileNotFoundError if none."""
    exe = "torchlint" + (sysconfig.get_config_var("EXE") or "")
    seen = []
    # The scripts folder of the scheme the wheel was installed with: the
    # default one (a venv, the system), then the user scheme (pip --user).
    schemes = [sysconfig.get_default_scheme() if hasattr(sysconfig, "get_default_scheme") else None]
    schemes.append(os.name + "_user")
    for scheme in schemes:
        try:
            seen.append(sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts"))
        except KeyError:
            pass
    # pip install --target DIR puts the package in DIR and the scripts in
    # DIR/bin; a prefix install has them three levels up (lib/pythonX.Y/site-packages).
    here = os.path.dirname(os.path.abspath(__file__))
    seen.append(os.path.join(os.path.dirname(here), "bin"))
    seen.append(os.path.join(here, "..", "..", "..", "..", "bin"))
    for folder in seen:
        path = os.path.join(folder, exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    raise FileNotFoundError("torchlint: the binary is not installed next to this package (looked in %s)"
                            % ", ".join(os.path.normpath(f) for f in seen))


__all__ = ["find_torchlint_bin"]
