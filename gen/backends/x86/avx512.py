"""AVX-512 F + BW alone, 512-bit: vpshufb per lane, VPROLD/VPROLQ, and
two-operation bitwise chains as VPTERNLOGD; no GFNI or VBMI2 (double shifts
are two shifts and an or)."""

from functools import wraps

from .. import rules
from . import rules as x86_rules
from .aesni_passes import LOWERING_PASS, NIBBLE_PASS, SELECT_AVX2
from .avx512_gfni import bitwise_pair_as_ternary_logic, rotate_native, shared_xor_as_ternary_logic
from .target import target


def at_full_width(rule):
    """`rule` on 512-bit operations only.  Without AVX512VL (not asked for)
    the EVEX instructions it writes (VPTERNLOGD, VPROLD) have no 128- or
    256-bit form: a narrower program on this target (uBlock's one-block form,
    128-bit) takes the VEX lowering of the rules after it (AVX2's for a select)."""
    @wraps(rule)
    def full_width(rw, op, args):
        return rule(rw, op, args) if op.result is not None and op.result.bits == 512 else None
    return full_width


TARGET = target(
    name="avx512", bits=512, cflags=("-mavx512f", "-mavx512bw"), cpu_features=("avx512f", "avx512bw"),
    # Byte-multiple rotations stay shuffles (as on avx512_gfni); the others are VPROLD/VPROLQ.
    passes=((rules.rotate_bytes_by_shuffle, at_full_width(rotate_native)) + LOWERING_PASS
            + (at_full_width(x86_rules.select_by_ternary_logic),) + SELECT_AVX2 + (rules.clmul_by_shifts,),
            NIBBLE_PASS, x86_rules.BYTE_SHIFT_PASS,
            (at_full_width(shared_xor_as_ternary_logic), at_full_width(bitwise_pair_as_ternary_logic),
             x86_rules.blocks128_by_permute2q)),
    lacks=("clmul",),  # no VPCLMULQDQ asked for
    emulable=True,
    description="AVX-512 F/BW vpshufb and VPTERNLOGD, 512-bit vectors")
