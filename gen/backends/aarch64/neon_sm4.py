"""NEON + FEAT_SM4: SM4E does four SM4 rounds on one block per register (the
rounds4 strategy); the other ops as on neon_aes, which every core with SM4
also has (Armv8.2 cores with the SM4 extension implement AES too), PMULL
included (FEAT_PMULL comes with FEAT_AES): GHASH's carry-less products beside
SM4E in GCM.  CPU detection asks for AES and PMULL as well, so that every CPU
that runs this kernel runs neon_aes's GF(2^128) key file (gen/emit/gf128_files.py)."""

from .passes import BYTE_SHIFT_PASS, INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS
from .rules import sm4_rounds_by_sm4e
from .target import target

TARGET = target(
    name="neon_sm4", cflags=("-march=armv8.2-a+crypto+sm4",), cpu_features=("asimd", "arm_aes", "arm_pmull", "arm_sm4"),
    passes=((sm4_rounds_by_sm4e,) + INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS),
    description="NEON + SM4E: four SM4 rounds per instruction, one block per 128-bit register")
