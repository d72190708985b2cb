"""Compile a lowered program's emitted C as a function of its parameters and
run it: natively for an x86 target this CPU has, under qemu-aarch64 for an
AArch64 one (cross-built with aarch64-linux-gnu-gcc, -cpu max: AES, PMULL,
SHA3, SM4).  Tests compare its output with the IR interpreter's."""

import shutil
import subprocess
from pathlib import Path

from gen.backends.arch import AARCH64, X86_64
from gen.backends.assembly import assembly_file

ROOT = Path(__file__).resolve().parents[1]
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu", "max"]


def _cpu_flags():
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        return set()
    return {word for line in cpuinfo.read_text().splitlines() if line.startswith("flags") for word in line.split()}


# x86 CPU features (Target.cpu_features) under /proc/cpuinfo's names where they differ.
_CPUINFO_NAME = {"pclmul": "pclmulqdq", "avx512vbmi2": "avx512_vbmi2"}


def why_not_runnable(target):
    """None where this machine can run `target`'s code, else the reason."""
    if target.arch == X86_64:
        if shutil.which("gcc") is None:
            return "no gcc"
        missing = [f for f in target.cpu_features if _CPUINFO_NAME.get(f, f) not in _cpu_flags()]
        return f"this CPU lacks {', '.join(missing)}" if missing else None
    if target.arch == AARCH64:
        missing = [tool for tool in (CROSS_CC, QEMU[0]) if shutil.which(tool) is None]
        return f"{' and '.join(missing)} not installed (make deps)" if missing else None
    return f"no way to run {target.arch.name} code here"


def run_compiled(program, target, memory, output, tmp_path):
    """Compile `program` (lowered for `target`) as a function of its
    parameters, run it on `memory` (parameter -> bytes) and return the bytes
    of `output`.  For an assembly twin (form "asm") the function is the
    backend's assembly emitter's, called from C."""
    arrays = "\n".join(f"static uint8_t {name}[{max(1, len(data))}] = {{{', '.join(map(str, data)) or '0'}}};"
                       for name, data in memory.items())
    params = ", ".join(f"uint8_t *{name}" for name in program.params)
    sources = [tmp_path / "kernel.c"]
    if target.form == "asm":
        sources.append(tmp_path / "kernel_asm.S")
        sources[1].write_text(assembly_file("/* test */", [("kernel_asm", program)], target, "t"))
        kernel = f"void kernel_asm({params});\n#define kernel kernel_asm"
    else:
        body = "\n".join(target.c_body(program))
        kernel = f"static void kernel({params})\n{{\n{body}\n}}"
    sources[0].write_text(f"""#include <stdio.h>
#include "{target.header}"
{arrays}
{kernel}
int main(void)
{{
    kernel({", ".join(program.params)});
    for (size_t i = 0; i < sizeof {output}; i++) printf("%02x", {output}[i]);
    return 0;
}}
""")
    exe = tmp_path / "kernel"
    cc, run = (["gcc"], [str(exe)]) if target.arch == X86_64 else ([CROSS_CC, "-static"], [*QEMU, str(exe)])
    subprocess.run([*cc, "-O1", *target.cflags, "-I", str(ROOT / "generated/src"), *map(str, sources), "-o", str(exe)],
                   check=True)
    return bytes.fromhex(subprocess.run(run, check=True, capture_output=True, text=True).stdout)
