"""The x86-64 backend: targets from SSSE3 to AVX-512 with AES-NI, VAES and
GFNI (one module each: feature set, legalization passes), their rules, the
meaning of their private ops (ops, registered with the IR interpreter when
imported, here, so any lowered program can be run) and the C intrinsics
emitter's forms (intrinsics)."""

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
