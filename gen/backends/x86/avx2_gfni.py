"""AVX2 + GFNI: 256-bit vectors, affine maps and inversions as GF2P8AFFINE(INV)QB."""

from .. import rules
from . import rules as x86_rules
from .gfni_passes import FUSION_PASS
from .target import target

TARGET = target(
    name="avx2_gfni", bits=256, cflags=("-mavx2", "-mgfni", "-mpclmul", "-mvpclmulqdq"),
    cpu_features=("avx2", "gfni", "pclmul", "vpclmulqdq"),
    passes=(FUSION_PASS + (rules.shld_half_by_rotations,), (rules.shld_by_shifts, rules.rotate_bytes_by_shuffle, rules.rotate_by_shifts, x86_rules.affine_via_gfni,
                                x86_rules.select_by_blendv, rules.select_by_masks), x86_rules.BYTE_SHIFT_PASS),
    emulable=True,
    description="AVX2 + GFNI gf2p8affineqb/gf2p8affineinvqb, 256-bit vectors")
