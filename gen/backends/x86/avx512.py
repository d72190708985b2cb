"""AVX-512 F + BW alone, 512-bit: vpshufb per lane, VPROLD/VPROLQ, and
two-operation bitwise chains as VPTERNLOGD; no GFNI or VBMI2 (double shifts
are two shifts and an or)."""

from .. import rules
from . import rules as x86_rules
from .aesni_passes import LOWERING_PASS, NIBBLE_PASS
from .avx512_gfni import bitwise_pair_as_ternary_logic, rotate_native, shared_xor_as_ternary_logic
from .target import target

TARGET = target(
    name="avx512", bits=512, cflags=("-mavx512f", "-mavx512bw"), cpu_features=("avx512f", "avx512bw"),
    # Byte-multiple rotations stay shuffles (as on avx512_gfni); the others are VPROLD/VPROLQ.
    passes=((rules.rotate_bytes_by_shuffle, rotate_native) + LOWERING_PASS
            + (x86_rules.select_by_ternary_logic, rules.clmul_by_shifts),
            NIBBLE_PASS, x86_rules.BYTE_SHIFT_PASS,
            (shared_xor_as_ternary_logic, bitwise_pair_as_ternary_logic, x86_rules.blocks128_by_permute2q)),
    lacks=("clmul",),  # no VPCLMULQDQ asked for
    emulable=True,
    description="AVX-512 F/BW vpshufb and VPTERNLOGD, 512-bit vectors")
