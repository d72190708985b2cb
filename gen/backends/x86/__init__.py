"""The x86-64 backend: targets from SSSE3 to AVX-512 with AES-NI, VAES and
GFNI (one module each: feature set, legalization passes), their rules, the
meaning of their private ops (ops, registered with the IR interpreter when
imported, here, so any lowered program can be run) and the C intrinsics
emitter's forms (intrinsics)."""

from ..cpu_model import CpuModel
from . import ops  # noqa: F401  (registers the x86 ops)
from .avx2 import TARGET as AVX2
from .avx2_aesni import TARGET as AVX2_AESNI
from .avx2_gfni import TARGET as AVX2_GFNI
from .avx2_vaes import TARGET as AVX2_VAES
from .avx512 import TARGET as AVX512
from .avx512_gfni import TARGET as AVX512_GFNI
from .ssse3 import TARGET as SSSE3
from .ssse3_aesni import TARGET as SSSE3_AESNI

TARGETS = (SSSE3_AESNI, AVX2_AESNI, AVX2_VAES, AVX2_GFNI, AVX512_GFNI, SSSE3, AVX2, AVX512)

# The host of the SIMDe builds (libkcrypt_emulated.a): the emulated kernels'
# own instructions come from SIMDe's portable C on top of this target's.
EMULATION_HOST = AVX2

# The llvm-mca CPU models of x86 kernels, with the features of the cores they
# model (as GCC's -march knows them: tests/test_explore.py checks): Zen 3 has
# AVX2, AES-NI, VAES, PCLMULQDQ and VPCLMULQDQ and no GFNI or AVX-512; Zen 4
# and Ice Lake server add AVX-512 (VL, VBMI, VBMI2) and GFNI.
_ZEN3 = frozenset({"ssse3", "aes", "avx2", "vaes", "pclmul", "vpclmulqdq"})
_AVX512 = _ZEN3 | {"avx512f", "avx512bw", "avx512vl", "avx512vbmi", "avx512vbmi2", "gfni"}
CPU_MODELS = (CpuModel("znver3", _ZEN3), CpuModel("znver4", _AVX512), CpuModel("icelake-server", _AVX512))

# Each cipher's kernels on x86 as (strategy, target name), in dispatch order:
# fastest first.
#
# SM4: the wider and the more specialised the instruction set, the faster;
# byte slicing beats word slicing on every target.
_SM4_TARGETS = ("avx512_gfni", "avx2_gfni", "avx2_vaes", "avx2_aesni", "ssse3_aesni")
# ZUC: fastest per byte first (measured on Zen 4, and for the AVX2 ones on Zen 3
# too: docs/performance/zuc.md).  Two interleaved groups hide the FSM's chain of
# dependent rounds, but every call then advances twice the lanes, so the
# many-stream API takes a `lanesx2` kernel only for more streams than one group.
# (A 32-lane lanesx2_avx512_gfni was measured and dropped: docs/performance/zuc.md.)
# uBlock: nibble slicing beats the register method on every target.  Nibbleslice
# avx2 comes before avx512: on the one AVX-512 CPU measured (Zen 4, which runs
# 512-bit operations at half rate) it was the faster in every variant and mode
# (docs/performance/ublock.md), while the register method gains from 512 bits
# there (twice the blocks per chain).
KERNELS = {
    "sm4": tuple((s, t) for s in ("byteslice", "wordslice") for t in _SM4_TARGETS),
    "zuc": (("lanes", "avx512_gfni"), ("lanes", "avx2_gfni"), ("lanesx2", "avx2_vaes"), ("lanes", "avx2_vaes"),
            ("lanes", "avx2_aesni"), ("lanes", "ssse3_aesni")),
    "ublock": (("nibbleslice", "avx2"), ("nibbleslice", "avx512"), ("nibbleslice", "ssse3"),
               ("register", "avx512"), ("register", "avx2"), ("register", "ssse3")),
}
