"""What the Linux kernel's glue needs to know of an x86 target before it runs
the target's Linux-dialect assembly: the CPU features as the kernel names
them (boot_cpu_has) and the register state the kernel must save for them
(cpu_has_xfeatures).  The features themselves are each target's
(cpu_features), written once in gen/backends/cpu_features.py."""

from ..cpu_features import FEATURES

# gen/backends/cpu_features.py's names -> <asm/cpufeatures.h>'s.
FEATURE_MACROS = {
    "ssse3": "X86_FEATURE_SSSE3", "pclmul": "X86_FEATURE_PCLMULQDQ", "aes": "X86_FEATURE_AES",
    "avx2": "X86_FEATURE_AVX2", "avx512f": "X86_FEATURE_AVX512F", "avx512bw": "X86_FEATURE_AVX512BW",
    "avx512vl": "X86_FEATURE_AVX512VL", "avx512vbmi": "X86_FEATURE_AVX512VBMI",
    "avx512vbmi2": "X86_FEATURE_AVX512_VBMI2", "gfni": "X86_FEATURE_GFNI", "vaes": "X86_FEATURE_VAES",
    "vpclmulqdq": "X86_FEATURE_VPCLMULQDQ",
}
# A register state (cpu_features.STATES) -> <asm/fpu/types.h>'s masks.
STATE_MASKS = {"sse": ("XFEATURE_MASK_SSE",), "avx": ("XFEATURE_MASK_SSE", "XFEATURE_MASK_YMM"),
               "avx512": ("XFEATURE_MASK_SSE", "XFEATURE_MASK_YMM", "XFEATURE_MASK_AVX512")}


def cpu_check(target):
    """(the X86_FEATURE_ macros, the XFEATURE_MASK_ expression) the kernel
    tests before running `target`'s code."""
    features = [f for f in FEATURES if f.name in target.cpu_features]
    widest = max((f.state for f in features), key=lambda s: s.xcr0)
    return [FEATURE_MACROS[f.name] for f in features], " | ".join(STATE_MASKS[widest.name])
