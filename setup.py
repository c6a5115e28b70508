"""The torchlint Python package: the binary in the wheel's scripts.

pip (or `python3 -m build`) runs this from the repository or from the sdist.
The binary is compiled by tools/build_binary.py with only a C compiler; the
sdist carries the pinned tree-sitter and jansson sources under deps/ (added
by the sdist command below), so building it needs no npm and no
libjansson-dev. The wheel's platform tag is the
one the binary meets (tools/check_binary.py): manylinux_2_X_ARCH when it
needs only the C runtime, at most GLIBC_2.X; linux_ARCH (this machine only)
when it links a shared library beyond that.
"""
import os
import shutil
import sys

from setuptools import Distribution, setup
from setuptools.command.sdist import sdist

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70.1: the wheel package has it
    from wheel.bdist_wheel import bdist_wheel
try:
    from setuptools.command.build_scripts import build_scripts
except ImportError:
    from distutils.command.build_scripts import build_scripts

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_binary  # noqa: E402
import check_binary  # noqa: E402

# The package compiles jansson in from its pinned release sources (deps.lock),
# from an sdist or a checkout alike, so a pip install needs no libjansson-dev.
os.environ.setdefault("TORCHLINT_BUNDLED_JANSSON", "1")

# Under build/, which the sdist leaves out.
BINARY = os.path.join("build", "python", "torchlint")
MANPAGE = os.path.join("build", "python", "torchlint.1")


class BuildBinary(build_scripts):
    """Compiles the binary, then installs it as the package's one script."""

    def run(self):
        build_binary.build(ROOT, os.path.join(ROOT, BINARY))
        # torchlint(1), from the binary's --help (installed as share/man/man1).
        import subprocess
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_man.py"), os.path.join(ROOT, BINARY),
                        os.path.join(ROOT, "docs", "usage.md"), os.path.join(ROOT, MANPAGE),
                        build_binary.makefile_value(ROOT, "HOMEPAGE")], check=True)
        super().run()

    def copy_scripts(self):
        # distutils would read the file as text to look for a #! line.
        self.mkpath(self.build_dir)
        out = os.path.join(self.build_dir, "torchlint")
        self.copy_file(os.path.join(ROOT, BINARY), out)
        os.chmod(out, 0o755)
        return [out], [out]


class BinaryDistribution(Distribution):
    """Not pure Python: the wheel is platform-specific (Root-Is-Purelib: false)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """py3-none-PLATFORM: any Python, the binary's platform."""

    def get_tag(self):
        with open(os.path.join(ROOT, BINARY), "rb") as f:
            info = check_binary.read_elf(f.read())
        for problem in check_binary.problems(info):
            print("setup.py: warning: the binary is not self-contained (%s): tagged for this machine only" % problem)
        return "py3", "none", check_binary.platform_tag(info)


class SdistWithDeps(sdist):
    """Adds the pinned tree-sitter and jansson sources, with their licences, under deps/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        ts_lib, ts_py = build_binary.find_deps(ROOT)
        lib = os.path.join(base_dir, "deps", "tree-sitter", "lib")
        py = os.path.join(base_dir, "deps", "tree-sitter-python", "src")
        for sub in ("include", "src"):
            shutil.copytree(os.path.join(ts_lib, sub), os.path.join(lib, sub))
        os.makedirs(py)
        for name in ("parser.c", "scanner.c", "node-types.json"):
            shutil.copy2(os.path.join(ts_py, name), py)
        shutil.copytree(os.path.join(ts_py, "tree_sitter"), os.path.join(py, "tree_sitter"))
        # The npm packages' licence files (MIT) sit one and three levels above.
        for src, dst in ((os.path.join(ts_lib, "..", "..", ".."), "tree-sitter"),
                         (os.path.join(ts_py, ".."), "tree-sitter-python")):
            lic = os.path.join(src, "LICENSE")
            if os.path.isfile(lic):
                shutil.copy2(lic, os.path.join(base_dir, "deps", dst, "LICENSE"))
        # jansson's release sources (MIT), compiled in so that building needs
        # no libjansson-dev: src/ and the licence of the tarball deps.lock pins.
        jansson = build_binary.find_jansson(ROOT)
        js = os.path.join(base_dir, "deps", "jansson", "src")
        os.makedirs(js)
        for name in sorted(os.listdir(jansson)):
            if name.endswith((".c", ".h", ".h.in")):
                shutil.copy2(os.path.join(jansson, name), js)
        shutil.copy2(os.path.join(jansson, "..", "LICENSE"), os.path.join(base_dir, "deps", "jansson", "LICENSE"))
        with open(os.path.join(base_dir, "deps", "README"), "w", encoding="utf-8") as f:
            f.write("The third-party C sources torchlint builds in, copied from the packages\n"
                    "that deps.lock pins (name, version, sha256 of the tarball, source: npm\n"
                    "unless a Debian archive path is given):\n\n")
            with open(os.path.join(ROOT, "deps.lock"), encoding="utf-8") as lock:
                f.writelines(line for line in lock if line.strip() and not line.startswith("#"))


setup(
    name="torchlint",
    version=build_binary.makefile_value(ROOT, "VERSION"),
    description="A static analyzer for PyTorch training scripts",
    long_description=open(os.path.join(ROOT, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    url=build_binary.makefile_value(ROOT, "HOMEPAGE"),
    # torchlint's licence, and those of what the binary compiles in
    # (tree-sitter, tree-sitter-python, jansson: MIT too), in the wheel's
    # .dist-info and the sdist.
    license="MIT",
    license_files=["LICENSE", "THIRD_PARTY_LICENSES"],
    python_requires=">=3.7",
    packages=["torchlint"],
    package_dir={"": "packaging/python"},
    scripts=[BINARY],
    data_files=[("share/man/man1", [MANPAGE])],
    cmdclass={"build_scripts": BuildBinary, "bdist_wheel": PlatformWheel, "sdist": SdistWithDeps},
    distclass=BinaryDistribution,
    zip_safe=False,
    classifiers=[
        "Environment :: Console",
        "License :: OSI Approved :: MIT License",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: C",
        "Topic :: Software Development :: Quality Assurance",
    ],
)
