"""NEON + FEAT_AES (+ FEAT_PMULL, which every core with AES has and the MACs
use): the inversion in AES's field by AESE with the key 0, the affine maps
around it as TBL nibble tables."""

from .passes import BYTE_SHIFT_PASS, INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS
from .target import target

TARGET = target(
    name="neon_aes", cflags=("-march=armv8-a+crypto",), cpu_features=("asimd", "arm_aes", "arm_pmull"),
    passes=(INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS),
    description="NEON TBL nibble tables + AESE, 128-bit vectors")
