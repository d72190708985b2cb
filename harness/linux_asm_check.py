#!/usr/bin/env python3
"""The Linux-dialect assembly (generated/asm/linux/<arch>/) built the way a
kernel maintainer would build it: as an out-of-tree module.

* x86_64: against Debian's linux-headers-amd64 (kbuild runs objtool on every
  object with the kernel's own configuration), then each object assembled
  again untouched and checked by `objtool --stackval --retpoline --rethunk
  --sls --module`: frame-pointer rules, no indirect branch without a
  retpoline, every return through the return thunk, no straight-line
  speculation past a return.  Any warning of either fails the check
  (objtool itself exits 0 on warnings).
* aarch64: Debian has no arm64 headers for an amd64 machine, so the arm64
  tree is prepared from Debian's linux-source-6.1 (defconfig, then
  modules_prepare, with aarch64-linux-gnu-gcc; cached under build/) and the
  module built against it; Linux 6.1 has no objtool for arm64, so the
  check is the build with no warning, and no use of x18 (the shadow call
  stack's register when the kernel is built with it).

Usage: python3 harness/linux_asm_check.py [--arch x86_64|aarch64] [--headers DIR]
       [--work build/linux-asm] [--arm64-tree build/linux-arm64] [FILE.S ...]
       (default files: every file of generated/asm/linux/<arch>/)
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OBJTOOL_CHECKS = ("--stackval", "--retpoline", "--rethunk", "--sls", "--module")
STUB = '#include <linux/module.h>\nMODULE_LICENSE("GPL");\nMODULE_DESCRIPTION("kcrypt generated assembly, build check");\n'


def headers_dir(given):
    """The kernel headers to build against: given, else Debian's newest -amd64."""
    if given:
        return given
    found = sorted(glob.glob("/usr/src/linux-headers-*-amd64"))
    if not found:
        raise SystemExit("linux_asm_check: no /usr/src/linux-headers-*-amd64: "
                         "make deps installs linux-headers-amd64")
    return found[-1]


def objtool(headers):
    """The objtool that kbuild runs (Debian's linux-kbuild ships it)."""
    candidates = [os.path.join(headers, "tools", "objtool", "objtool")]
    candidates += sorted(glob.glob("/usr/lib/linux-kbuild-*/tools/objtool/objtool"))
    for path in candidates:
        if os.access(path, os.X_OK):
            return os.path.realpath(path)
    raise SystemExit("linux_asm_check: no objtool (Debian's linux-kbuild-6.1 ships it)")


def assemble_command(work, stem):
    """kbuild's command that assembled `stem`.o, before its objtool step."""
    text = open(os.path.join(work, f".{stem}.o.cmd")).read()
    line = re.search(r"^cmd_\S+ := (.*)$", text, re.M).group(1)
    return line.split(" ; ")[0]


# The one kbuild warning that building against a prepared tree always gives
# (no vmlinux was linked, so no exported symbols are known): not about our files.
_NO_SYMVERS = ("Module.symvers is missing", "Modules may not have dependencies", "unresolved symbol warnings")


def arm64_tree(cache):
    """A Linux arm64 tree prepared for out-of-tree modules (the cross
    headers), from Debian's linux-source tarball: made once under `cache`."""
    tarballs = sorted(glob.glob("/usr/src/linux-source-*.tar.xz"))
    if not tarballs:
        raise SystemExit("linux_asm_check: no /usr/src/linux-source-*.tar.xz: make deps installs linux-source-6.1")
    out, stamp = os.path.join(cache, "out"), os.path.join(cache, "prepared")
    if os.path.exists(stamp) and open(stamp).read() == tarballs[-1]:
        return out
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    print(f"linux_asm_check: preparing an arm64 tree from {tarballs[-1]} (defconfig, modules_prepare)", flush=True)
    subprocess.run(["tar", "xf", tarballs[-1], "-C", cache], check=True)
    source = glob.glob(os.path.join(cache, "linux-source-*"))[0]
    for goal in ("defconfig", "modules_prepare"):
        subprocess.run(["make", "-s", f"-j{os.cpu_count()}", *ARM64_MAKE, f"O={out}", goal], cwd=source, check=True)
    with open(stamp, "w") as f:
        f.write(tarballs[-1])
    return out


ARM64_MAKE = ("ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=("x86_64", "aarch64"), default="x86_64")
    ap.add_argument("--headers")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "linux-asm"))
    ap.add_argument("--arm64-tree", default=os.path.join(REPO, "build", "linux-arm64"),
                    help="where the prepared arm64 tree is kept between runs")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(REPO, "generated", "asm", "linux", args.arch, "*.S")))
    work = os.path.abspath(args.work)
    if args.arch == "x86_64":
        headers, make = headers_dir(args.headers), ()
        tool = objtool(headers)
    else:
        headers, make = args.headers or arm64_tree(os.path.abspath(args.arm64_tree)), ARM64_MAKE
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    stems = []
    for path in files:
        stem = os.path.basename(path)[:-2]
        shutil.copy(path, os.path.join(work, f"{stem}.S"))
        stems.append(stem)
    with open(os.path.join(work, "kc_check_stub.c"), "w") as f:
        f.write(STUB)
    with open(os.path.join(work, "Kbuild"), "w") as f:
        f.write("obj-m := kc_asm_check.o\nkc_asm_check-y := kc_check_stub.o "
                + " ".join(f"{s}.o" for s in stems) + "\n")
    build = subprocess.run(["make", "-C", headers, *make, f"M={work}", "modules"], capture_output=True, text=True)
    output = build.stdout + build.stderr
    warnings = [line for line in output.splitlines() if "warning" in line.lower() and "BTF" not in line
                and not any(known in line for known in _NO_SYMVERS)]
    problems, clean = 0, 0
    if build.returncode:
        print(output[-4000:])
        print(f"linux_asm_check: FAIL: the module build failed against {headers}")
        return 1
    for line in warnings:
        print(f"FAIL kbuild: {line}")
        problems += 1
    for stem in stems:
        found = objtool_findings(work, headers, stem, tool) if args.arch == "x86_64" else x18_uses(work, stem)
        if found:
            problems += 1
            print(f"FAIL {stem}: {found}")
        else:
            clean += 1
            print(f"PASS {stem}: module build" + (f" and objtool {' '.join(OBJTOOL_CHECKS)}" if args.arch == "x86_64"
                                                  else ", no x18") + " clean")
    print(f"linux_asm_check: {len(stems)} files against {headers}: {clean} clean, {problems} findings")
    return 1 if problems else 0


def objtool_findings(work, headers, stem, tool):
    """What objtool says of `stem`'s object assembled again untouched (kbuild's own has been through it)."""
    pristine = os.path.join(work, f"{stem}.pristine.o")
    command = assemble_command(work, stem).replace(f"-o {work}/{stem}.o ", f"-o {pristine} ")
    subprocess.run(command, shell=True, check=True, cwd=headers)
    check = subprocess.run([tool, *OBJTOOL_CHECKS, pristine], capture_output=True, text=True)
    found = (check.stdout + check.stderr).strip()
    return f"objtool {' '.join(OBJTOOL_CHECKS)}:\n{found}" if found or check.returncode else None


def x18_uses(work, stem):
    """The instructions of `stem`'s object that name x18 or w18."""
    dump = subprocess.run(["aarch64-linux-gnu-objdump", "-d", os.path.join(work, f"{stem}.o")], capture_output=True,
                          text=True, check=True).stdout
    uses = [line.strip() for line in dump.splitlines() if re.search(r"\b[xw]18\b", line)]
    return f"x18 used:\n" + "\n".join(uses[:5]) if uses else None


if __name__ == "__main__":
    sys.exit(main())
