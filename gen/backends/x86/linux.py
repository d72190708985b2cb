"""What the Linux kernel's glue needs to know of x86-64 (the Linux dialect's
C side; the assembly's is x86/asm.py's "linux" dialect): how kernel code
brackets SIMD use, how it tests a target's CPU features (boot_cpu_has) and
the register state the kernel saves for them (cpu_has_xfeatures), and that
crypto algorithms using the FPU register through crypto_simd's wrapper (x86
kernel code may not touch the FPU from every context).  The features
themselves are each target's (cpu_features), written once in
gen/backends/cpu_features.py."""

from ..cpu_features import FEATURES

GLUE = {
    "includes": ("<asm/cpufeature.h>", "<asm/fpu/api.h>", "<asm/simd.h>", "<crypto/internal/simd.h>"),
    "simd_begin": "kernel_fpu_begin()",
    "simd_end": "kernel_fpu_end()",
    "simd_wrapper": True,  # internal "__" algorithms, crypto_simd's wrappers for callers without the FPU
}

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
    """The C conditions (a list, to be joined by &&) under which the kernel
    may run `target`'s code."""
    features = [f for f in FEATURES if f.name in target.cpu_features]
    widest = max((f.state for f in features), key=lambda s: s.xcr0)
    return [f"boot_cpu_has({FEATURE_MACROS[f.name]})" for f in features] + \
        [f"cpu_has_xfeatures({' | '.join(STATE_MASKS[widest.name])}, NULL)"]
