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

# Measured choices of single kernels, by (strategy, target name).
TUNING = {
    # ZUC kernels whose keystream functions keep the LFSR cells in the state
    # array (zuc_lanes.keystream_program's lfsr_in_memory).  With its 16 cells,
    # their doubled values and shared halves in registers, the 512-bit kernel
    # spills 69 registers per block (GCC 12), 56 this way.  On Zen 4 that is
    # 3-8% faster in place where the 16 messages lie exactly 4 KiB apart (each
    # block's lines in one L1 set, which evicts the spill slots), and the same
    # speed where they do not (docs/performance/zuc.md).
    "zuc_lfsr_in_memory": {("lanes", "avx512_gfni")},
    # ZUC kernels whose keystream functions run the block's 16 rounds as a loop
    # (zuc_lanes.keystream_program's rolled): measured on Zen 3, where the
    # unrolled functions (14-29 KB of straight-line code) run from the
    # instruction decoders rather than the decoded-instruction cache
    # (docs/performance/zuc.md).
    "zuc_rolled": {("lanesx2", "avx2_vaes"), ("lanes", "avx2_vaes"), ("lanes", "avx2_aesni")},
    # Assembly twins whose functions are scheduled for low register pressure
    # before allocation (gen/backends/schedule.py).  Measured in one bench run on
    # an Intel Xeon (Sapphire Rapids class, 2026-11-26, docs/assembly.md): the
    # nibble-sliced uBlock round keeps 32 state registers in 16 and gains
    # (nibbleslice_avx2 asm/C 0.86 -> 1.13-1.27, ssse3 0.94 -> 0.97-1.45);
    # SM4's byte slicing loses (byteslice_avx2_gfni 1.20 -> 0.85), ZUC a little.
    "asm_pressure_schedule": {("nibbleslice", "avx2"), ("nibbleslice", "avx512"), ("nibbleslice", "ssse3")},
}
