"""Where the CPU reports each instruction-set extension the targets need: a
CPUID leaf, register and bit (Intel SDM vol. 2A, CPUID), and the register
state the OS must save for it (XCR0 bits, read with XGETBV).

The generated dispatch reads these with CPUID itself (generated/src/kc_cpu.c)
rather than through the compiler's __builtin_cpu_supports, whose feature names
differ between compilers and versions (clang 16 rejects "vaes"): the generated
C must build with any C11 compiler a downstream project uses.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class RegisterState:
    """XCR0 bits that must all be set for an extension's registers to be saved."""
    name: str
    xcr0: int
    what: str

    @property
    def macro(self):
        return f"KC_XCR0_{self.name.upper()}"


STATE_SSE = RegisterState("sse", 1 << 1, "XMM registers")
STATE_AVX = RegisterState("avx", STATE_SSE.xcr0 | 1 << 2, "and the upper halves of the YMM registers")
STATE_AVX512 = RegisterState("avx512", STATE_AVX.xcr0 | 0b111 << 5,
                             "and the opmask registers, the upper halves of ZMM0-15, and ZMM16-31")
STATES = (STATE_SSE, STATE_AVX, STATE_AVX512)


@dataclass(frozen=True)
class CpuFeature:
    name: str      # the spelling of GCC's -m flag, which targets use
    leaf: int
    subleaf: int
    register: str  # "ebx", "ecx" or "edx"
    bit: int
    state: RegisterState  # what the OS must save

    @property
    def macro(self):
        """The feature's bit in kc_cpu.h: KC_CPU_AVX2 and so on."""
        return f"KC_CPU_{self.name.upper()}"


FEATURES = (
    CpuFeature("ssse3", 1, 0, "ecx", 9, STATE_SSE),
    CpuFeature("pclmul", 1, 0, "ecx", 1, STATE_SSE),
    CpuFeature("aes", 1, 0, "ecx", 25, STATE_SSE),
    CpuFeature("avx2", 7, 0, "ebx", 5, STATE_AVX),
    CpuFeature("avx512f", 7, 0, "ebx", 16, STATE_AVX512),
    CpuFeature("avx512bw", 7, 0, "ebx", 30, STATE_AVX512),
    CpuFeature("avx512vbmi", 7, 0, "ecx", 1, STATE_AVX512),
    CpuFeature("avx512vbmi2", 7, 0, "ecx", 6, STATE_AVX512),
    CpuFeature("gfni", 7, 0, "ecx", 8, STATE_SSE),
    CpuFeature("vaes", 7, 0, "ecx", 9, STATE_AVX),
    CpuFeature("vpclmulqdq", 7, 0, "ecx", 10, STATE_AVX),
)
BY_NAME = {f.name: f for f in FEATURES}


def feature(name):
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown CPU feature {name!r}; known: {', '.join(BY_NAME)}") from None


def cpu_check(names):
    """The C expression that is true when this CPU (and OS) has every feature in `names`."""
    mask = " | ".join(feature(n).macro for n in names)
    return f"kc_cpu_has({mask})"
