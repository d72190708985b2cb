"""Where the CPU reports each instruction-set extension the targets need, per
architecture:

- x86-64: a CPUID leaf, register and bit (Intel SDM vol. 2A, CPUID), and the
  register state the OS must save for it (XCR0 bits, read with XGETBV);
- AArch64: a bit of the Linux auxiliary vector's AT_HWCAP word, read with
  getauxval (arch/arm64/include/uapi/asm/hwcap.h), which the kernel sets only
  for what it supports.

Each feature also says whether valgrind (3.19, Debian 12's, which the
constant-time check runs under) executes its instructions: RUNS, SPLIT (not
itself, but the backend can issue each such instruction as narrower ones
valgrind runs, in a build with KC_VALGRIND_SPLIT_VAES) or NO.  A target's
valgrind verdict (Target.valgrind) follows from its features'.

The generated dispatch reads these itself (generated/src/kc_cpu.c) rather than
through the compiler's __builtin_cpu_supports, whose feature names differ
between compilers and versions (clang 16 rejects "vaes"): the generated C must
build with any C11 compiler a downstream project uses.  Every architecture's
features share one bit space in kc_cpu.h, so the public header is the same on
each; on any one CPU only its own architecture's bits can be set.
"""

from dataclasses import dataclass

from .arch import AARCH64, X86_64


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


# What valgrind does with a feature's instructions (see the module docstring).
RUNS, SPLIT, NO = "runs", "split", "no"


class _Feature:
    @property
    def macro(self):
        """The feature's bit in kc_cpu.h: KC_CPU_AVX2, KC_CPU_ARM_PMULL and so on."""
        return f"KC_CPU_{self.name.upper()}"


@dataclass(frozen=True)
class X86Feature(_Feature):
    name: str      # the spelling of GCC's -m flag, which targets use
    leaf: int
    subleaf: int
    register: str  # "ebx", "ecx" or "edx"
    bit: int
    state: RegisterState  # what the OS must save
    valgrind: str = RUNS  # RUNS, SPLIT or NO
    arch = X86_64

    @property
    def where(self):
        """Where it is read, for the comment in kc_cpu.h."""
        return f"CPUID.({self.leaf},{self.subleaf}):{self.register.upper()} bit {self.bit}, {self.state.name.upper()} state"


@dataclass(frozen=True)
class Aarch64Feature(_Feature):
    name: str   # the Linux /proc/cpuinfo name, with "arm_" before the crypto extensions (x86 has an "aes")
    hwcap: str  # the kernel's macro for the bit
    bit: int    # its bit in getauxval(AT_HWCAP)
    valgrind: str = NO  # the constant-time check runs on x86-64 alone: valgrind's AArch64 decoding is not relied on
    arch = AARCH64

    @property
    def where(self):
        return f"AT_HWCAP bit {self.bit}, {self.hwcap}"


# Valgrind 3.19 executes SSSE3, AVX2, 128-bit AES-NI and PCLMULQDQ, but not
# GFNI, AVX-512, or the 256-bit VAES and VPCLMULQDQ forms; the x86 backend
# writes a 256-bit VAESENCLAST as two 128-bit AESENCLASTs under
# KC_VALGRIND_SPLIT_VAES (kc_x86.h, x86/asm.py).
X86_FEATURES = (
    X86Feature("ssse3", 1, 0, "ecx", 9, STATE_SSE),
    X86Feature("pclmul", 1, 0, "ecx", 1, STATE_SSE),
    X86Feature("aes", 1, 0, "ecx", 25, STATE_SSE),
    X86Feature("avx2", 7, 0, "ebx", 5, STATE_AVX),
    X86Feature("avx512f", 7, 0, "ebx", 16, STATE_AVX512, NO),
    X86Feature("avx512bw", 7, 0, "ebx", 30, STATE_AVX512, NO),
    X86Feature("avx512vbmi", 7, 0, "ecx", 1, STATE_AVX512, NO),
    X86Feature("avx512vbmi2", 7, 0, "ecx", 6, STATE_AVX512, NO),
    X86Feature("gfni", 7, 0, "ecx", 8, STATE_SSE, NO),
    X86Feature("vaes", 7, 0, "ecx", 9, STATE_AVX, SPLIT),
    X86Feature("vpclmulqdq", 7, 0, "ecx", 10, STATE_AVX, SPLIT),  # 256-bit VPCLMULQDQ as two PCLMULQDQ
    X86Feature("avx512vl", 7, 0, "ebx", 31, STATE_AVX512, NO),  # AVX-512 instructions on xmm/ymm
)
AARCH64_FEATURES = (
    Aarch64Feature("asimd", "HWCAP_ASIMD", 1),     # Advanced SIMD (NEON)
    Aarch64Feature("arm_aes", "HWCAP_AES", 3),     # FEAT_AES: AESE, AESD, AESMC, AESIMC
    Aarch64Feature("arm_pmull", "HWCAP_PMULL", 4),  # FEAT_PMULL: PMULL/PMULL2 on 64-bit lanes
    Aarch64Feature("arm_sha3", "HWCAP_SHA3", 17),  # FEAT_SHA3: EOR3, BCAX, RAX1, XAR
    Aarch64Feature("arm_sm4", "HWCAP_SM4", 19),    # FEAT_SM4: SM4E, SM4EKEY
)
# x86 first: their bits in kc_cpu.h are the ones they had before AArch64 came.
FEATURES = X86_FEATURES + AARCH64_FEATURES
BY_NAME = {f.name: f for f in FEATURES}
if len(BY_NAME) != len(FEATURES):
    raise ValueError("two CPU features share a name")


def feature(name):
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown CPU feature {name!r}; known: {', '.join(BY_NAME)}") from None


def of_arch(arch):
    """The features `arch` (gen/backends/arch.py) reports, in kc_cpu.h's order."""
    return tuple(f for f in FEATURES if f.arch == arch)


def check_arch(names, arch):
    """Raise unless every feature in `names` is one `arch` has: a target's
    features must be its own architecture's, or its kernels never run."""
    foreign = [n for n in names if feature(n).arch != arch]
    if foreign:
        raise ValueError(f"CPU features {', '.join(foreign)} are not {arch.name} features")


def cpu_check(names, arch=None):
    """The C expression that is true when this CPU (and OS) has every feature
    in `names`, all of one architecture (`arch` where given)."""
    features = [feature(n) for n in names]
    if features:
        check_arch(names, arch or features[0].arch)
    mask = " | ".join(f.macro for f in features)
    return f"kc_cpu_has({mask})"
