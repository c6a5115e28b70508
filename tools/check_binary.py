#!/usr/bin/env python3
"""Reads what an ELF executable needs from the system that runs it.

    check_binary.py BINARY          report, exit 1 unless self-contained
    check_binary.py --tag BINARY    print the wheel platform tag it meets

Two facts decide where a binary runs: the shared libraries its dynamic
section names (DT_NEEDED) and the glibc symbol versions it asks for
(.gnu.version_r). A self-contained torchlint needs only the C runtime:
libc, libm, libpthread and the loader. The highest GLIBC_2.X version gives
the honest manylinux tag (manylinux_2_X_ARCH, PEP 600): the binary runs on
any glibc from 2.X on. A fully static binary (no program interpreter, no
shared library: `make dist`'s musl build) needs neither, and is tagged for
both manylinux2014 and musllinux.

The ELF is read here with nothing but the standard library (32 and 64 bit,
either byte order), so the sdist build needs no binutils; tests compare it
with readelf.
"""
import json
import re
import struct
import sys

# Libraries the C runtime provides everywhere glibc does.
ALLOWED = re.compile(r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")

# e_machine -> the architecture name wheel tags use.
MACHINES = {3: "i686", 40: "armv7l", 21: "ppc64le", 22: "s390x", 62: "x86_64", 183: "aarch64", 243: "riscv64"}

PT_INTERP = 3
SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NEEDED = 1


class ElfError(Exception):
    pass


def _cstr(data, off):
    end = data.find(b"\0", off)
    if off < 0 or off >= len(data) or end < 0:
        raise ElfError("string offset out of range")
    return data[off:end].decode("utf-8", "replace")


def read_elf(data):
    """Returns {"bits", "machine", "needed": [...], "versions": {lib: [...]}}."""
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise ElfError("not an ELF file")
    bits = {1: 32, 2: 64}.get(data[4])
    order = {1: "<", 2: ">"}.get(data[5])
    if bits is None or order is None:
        raise ElfError("unknown ELF class or byte order")
    (machine,) = struct.unpack_from(order + "H", data, 18)
    if bits == 64:
        phoff, = struct.unpack_from(order + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x36)
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum, _shstrndx = struct.unpack_from(order + "HHH", data, 0x3A)
        shfmt, dynfmt = order + "IIQQQQIIQQ", order + "qQ"
    else:
        phoff, = struct.unpack_from(order + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x2A)
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum, _shstrndx = struct.unpack_from(order + "HHH", data, 0x2E)
        shfmt, dynfmt = order + "IIIIIIIIII", order + "iI"
    if shoff == 0 or shnum == 0:
        raise ElfError("no section headers")
    # A program interpreter (the dynamic loader) is what a dynamically linked
    # executable asks for first; a fully static one has none.
    interp = False
    for i in range(phnum):
        if phoff + (i + 1) * phentsize > len(data):
            raise ElfError("program header past the end of the file")
        (ptype,) = struct.unpack_from(order + "I", data, phoff + i * phentsize)
        interp = interp or ptype == PT_INTERP
    sections = []
    for i in range(shnum):
        f = struct.unpack_from(shfmt, data, shoff + i * shentsize)
        # name, type, flags, addr, offset, size, link, info, align, entsize
        sections.append({"type": f[1], "offset": f[4], "size": f[5], "link": f[6], "info": f[7]})

    def body(sec):
        if sec["offset"] + sec["size"] > len(data):
            raise ElfError("section past the end of the file")
        return data[sec["offset"]:sec["offset"] + sec["size"]]

    needed = []
    versions = {}
    for sec in sections:
        if sec["type"] == SHT_DYNAMIC:
            strtab = body(sections[sec["link"]])
            raw = body(sec)
            step = struct.calcsize(dynfmt)
            for off in range(0, len(raw) - step + 1, step):
                tag, val = struct.unpack_from(dynfmt, raw, off)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    needed.append(_cstr(strtab, val))
        elif sec["type"] == SHT_GNU_VERNEED:
            strtab = body(sections[sec["link"]])
            raw = body(sec)
            off = 0
            # sh_info counts the Verneed entries; each is 16 bytes, its
            # Vernaux list 16 bytes an entry, linked by relative offsets.
            for _ in range(sec["info"]):
                _ver, cnt, vfile, aux, nxt = struct.unpack_from(order + "HHIII", raw, off)
                names = versions.setdefault(_cstr(strtab, vfile), [])
                aoff = off + aux
                for _ in range(cnt):
                    _hash, _flags, _other, name, anext = struct.unpack_from(order + "IHHII", raw, aoff)
                    names.append(_cstr(strtab, name))
                    aoff += anext
                if nxt == 0:
                    break
                off += nxt
    return {"bits": bits, "machine": MACHINES.get(machine, "machine-%d" % machine),
            "needed": needed, "versions": versions, "static": not interp and not needed}


def glibc_needed(info):
    """The highest GLIBC_x.y[.z] version asked for, as a tuple, or None."""
    best = None
    for names in info["versions"].values():
        for name in names:
            m = re.match(r"^GLIBC_(\d+)\.(\d+)(?:\.(\d+))?$", name)
            if m:
                v = tuple(int(x or 0) for x in m.groups())
                best = v if best is None or v > best else best
    return best


def problems(info):
    """What keeps the binary from being self-contained (empty when it is)."""
    out = ["needs %s" % lib for lib in info["needed"] if not ALLOWED.match(lib)]
    for lib, names in info["versions"].items():
        for name in names:
            if name.startswith("GLIBC_") and not re.match(r"^GLIBC_\d+\.\d+(\.\d+)?$", name):
                out.append("needs %s from %s" % (name, lib))
    if not info["needed"] and not info.get("static"):
        out.append("no shared library named, yet a program interpreter: cannot tell what it needs")
    return out


# A fully static executable needs nothing from the system's C library: it runs
# on any glibc (manylinux, from the oldest tag pip still installs, 2_17 =
# manylinux2014) and on musl systems (musllinux) alike.
STATIC_TAGS = ("manylinux_2_17_{m}", "manylinux2014_{m}", "musllinux_1_1_{m}")


def platform_tag(info):
    """manylinux_2_X_ARCH when self-contained, a manylinux + musllinux tag set
    when fully static, else linux_ARCH (this machine only)."""
    if info.get("static") and not problems(info):
        return ".".join(t.format(m=info["machine"]) for t in STATIC_TAGS)
    v = glibc_needed(info)
    if problems(info) or v is None:
        return "linux_" + info["machine"]
    return "manylinux_%d_%d_%s" % (v[0], v[1], info["machine"])


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = [a for a in argv if a.startswith("--")]
    if len(args) != 1 or any(f not in ("--tag", "--json") for f in flags):
        print("usage: check_binary.py [--tag | --json] BINARY", file=sys.stderr)
        return 2
    try:
        with open(args[0], "rb") as f:
            info = read_elf(f.read())
    except (OSError, ElfError, struct.error) as e:
        print("check_binary: %s: %s" % (args[0], e), file=sys.stderr)
        return 2
    v = glibc_needed(info)
    bad = problems(info)
    if "--tag" in flags:
        print(platform_tag(info))
        return 0
    if "--json" in flags:
        print(json.dumps({"needed": info["needed"], "versions": info["versions"],
                          "glibc": ".".join(map(str, v[:2])) if v else None,
                          "tag": platform_tag(info), "problems": bad}, sort_keys=True))
        return 1 if bad else 0
    print("%s: ELF %d-bit %s" % (args[0], info["bits"], info["machine"]))
    print("  shared libraries needed: %s" % (", ".join(info["needed"]) or "none"))
    print("  highest glibc symbol version: %s" % ("GLIBC_" + ".".join(map(str, v[:2] if v[2] == 0 else v)) if v else "none"))
    print("  wheel platform tag: %s" % platform_tag(info))
    for p in bad:
        print("  not self-contained: %s" % p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
