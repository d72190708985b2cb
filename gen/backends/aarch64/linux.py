"""What the Linux kernel's glue needs to know of AArch64 (the Linux dialect's
C side; the assembly's is aarch64/asm.py's "linux" dialect): how kernel code
brackets NEON use, and how it tests a target's CPU features
(cpu_have_named_feature, the hwcap names of <asm/hwcap.h> without their
HWCAP_ prefix).  arm64 kernel code may use NEON from process and softirq
context, so algorithms register directly, as the kernel's own SM4 glue
(arch/arm64/crypto/sm4-ce-glue.c) does.  The features themselves are each
target's (cpu_features), written once in gen/backends/cpu_features.py."""

from ..cpu_features import FEATURES

GLUE = {
    "includes": ("<asm/cpufeature.h>", "<asm/neon.h>", "<asm/simd.h>"),
    "simd_begin": "kernel_neon_begin()",
    "simd_end": "kernel_neon_end()",
    "simd_wrapper": False,
}


def cpu_check(target):
    """The C conditions (a list, to be joined by &&) under which the kernel
    may run `target`'s code."""
    return [f"cpu_have_named_feature({f.hwcap.removeprefix('HWCAP_')})" for f in FEATURES
            if f.name in target.cpu_features]
