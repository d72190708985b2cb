"""AVX-512 (F, BW, VBMI, VBMI2) + GFNI: 512-bit vectors, GF2P8AFFINE(INV)QB,
VPROLD, VPSHLDD/W double shifts, 256-byte table lookups by VPERMI2B, and
two-operation bitwise chains (three-input XORs, (a | b) & c, ...) as VPTERNLOGD.
Every CPU with AVX-512 and GFNI (Ice Lake and later, Zen 4) has VBMI."""

from . import rules
from .gfni_passes import FUSION_PASS
from .target import Target


def shld_native(rw, op, args):
    """AVX-512 VBMI2 double shifts (VPSHLDD/VPSHLDW): one instruction."""
    if op.opcode != "shld" or op.attrs["lane"] not in (16, 32):
        return None
    return rw._emit("shld_native", args, op.result.name, **op.attrs)


def rotate_native(rw, op, args):
    """AVX-512F rotates 32/64-bit elements in one instruction (VPROLD/VPROLQ)."""
    if op.opcode != "rotl" or op.attrs["lane"] not in (32, 64):
        return None
    return rw._emit("rotl_native", args, op.result.name, n=op.attrs["n"], lane=op.attrs["lane"])


_BITWISE = {"xor": lambda a, b: a ^ b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
            "andnot": lambda a, b: ~a & b & 0xFF}
# The truth-table inputs of VPTERNLOGD's three operands.
_TERNLOG_INPUTS = (0xF0, 0xCC, 0xAA)


def bitwise_pair_as_ternary_logic(rw, op, args):
    """f(g(a, b), c) for bitwise f, g -> one VPTERNLOGD(a, b, c) whose truth
    table is f(g(A, B), C) on the canonical inputs, when g's result has no other use."""
    if op.opcode not in _BITWISE:
        return None
    for side in (0, 1):
        inner = rw.definition(args[side])
        if inner is None or inner.opcode not in _BITWISE or rw.source_uses.get(op.args[side]) != 1:
            continue
        a, b, c = _TERNLOG_INPUTS
        g = _BITWISE[inner.opcode](a, b)
        imm = _BITWISE[op.opcode](g, c) if side == 0 else _BITWISE[op.opcode](c, g)
        return rw._emit("ternlog", tuple(inner.args) + (args[1 - side],), op.result.name, imm=imm & 0xFF)
    return None


TARGET = Target(
    name="avx512_gfni", bits=512, cflags=("-mavx512f", "-mavx512bw", "-mavx512vbmi", "-mavx512vbmi2", "-mgfni"),
    cpu_features=("avx512f", "avx512bw", "avx512vbmi", "avx512vbmi2", "gfni"),
    passes=(FUSION_PASS, (rules.rotate_bytes_by_shuffle, rotate_native, shld_native, rules.affine_via_gfni,
                                    rules.select_by_ternary_logic, rules.sbox8_by_vpermi2b),
            (bitwise_pair_as_ternary_logic,)),
    emulable=True,
    # ZUC keystream 0.95 -> 0.83 c/B with GCC 12 on Zen 4; SM4's kernels slow down (README, ZUC).
    schedule_before_ra=("lanes",),
    description="AVX-512 + GFNI gf2p8affineqb/gf2p8affineinvqb, 512-bit vectors")
