#!/usr/bin/env python3
"""The Linux-dialect assembly (generated/asm/linux/x86_64/) built the way a kernel
maintainer would build it: as an out-of-tree module against Debian's
linux-headers-amd64 (kbuild runs objtool on every object with the kernel's
own configuration), then each object assembled again untouched and checked
by `objtool --stackval --retpoline --rethunk --sls --module`: frame-pointer
rules, no indirect branch without a retpoline, every return through the
return thunk, no straight-line speculation past a return.  Any warning of
either fails the check (objtool itself exits 0 on warnings).

Usage: python3 harness/linux_asm_check.py [--headers DIR] [--work build/linux-asm] [FILE.S ...]
       (default files: every file of generated/asm/linux/x86_64/)
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--headers")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "linux-asm"))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(REPO, "generated", "asm", "linux", "x86_64", "*.S")))
    headers = headers_dir(args.headers)
    tool = objtool(headers)
    work = os.path.abspath(args.work)
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
    build = subprocess.run(["make", "-C", headers, f"M={work}", "modules"], capture_output=True, text=True)
    output = build.stdout + build.stderr
    warnings = [line for line in output.splitlines() if "warning" in line.lower() and "BTF" not in line]
    problems, clean = 0, 0
    if build.returncode:
        print(output[-4000:])
        print(f"linux_asm_check: FAIL: the module build failed against {headers}")
        return 1
    for line in warnings:
        print(f"FAIL kbuild: {line}")
        problems += 1
    for stem in stems:
        pristine = os.path.join(work, f"{stem}.pristine.o")
        command = assemble_command(work, stem).replace(f"-o {work}/{stem}.o ", f"-o {pristine} ")
        subprocess.run(command, shell=True, check=True, cwd=headers)
        check = subprocess.run([tool, *OBJTOOL_CHECKS, pristine], capture_output=True, text=True)
        found = (check.stdout + check.stderr).strip()
        if found or check.returncode:
            problems += 1
            print(f"FAIL {stem}: objtool {' '.join(OBJTOOL_CHECKS)}:\n{found}")
        else:
            clean += 1
            print(f"PASS {stem}: module build and objtool {' '.join(OBJTOOL_CHECKS)} clean")
    print(f"linux_asm_check: {len(stems)} files against {os.path.basename(headers)}: {clean} clean, "
          f"{problems} findings")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
