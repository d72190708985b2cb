"""NEON + FEAT_SM4: SM4E does four SM4 rounds on one block per register (the
rounds4 strategy); the other ops as on neon_aes, which every core with SM4
also has (Armv8.2 cores with the SM4 extension implement AES too)."""

from .. import rules
from .passes import BYTE_SHIFT_PASS, INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS
from .rules import sm4_rounds_by_sm4e
from .target import target

TARGET = target(
    name="neon_sm4", cflags=("-march=armv8.2-a+sm4",), cpu_features=("asimd", "arm_sm4"),
    passes=((sm4_rounds_by_sm4e,) + INVERSION_PASS, (rules.clmul_by_shifts,) + LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS),
    lacks=("clmul",),  # its features name no FEAT_PMULL
    description="NEON + SM4E: four SM4 rounds per instruction, one block per 128-bit register")
