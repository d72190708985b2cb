"""AVX-512 (F, BW) + GFNI: 512-bit vectors, GF2P8AFFINE(INV)QB, VPROLD and
three-input XORs as VPTERNLOGD."""

from . import rules
from .gfni_passes import FUSION_PASS
from .target import Target


def rotate_native(rw, op, args):
    """AVX-512F rotates 32/64-bit elements in one instruction (VPROLD/VPROLQ)."""
    if op.opcode != "rotl" or op.attrs["lane"] not in (32, 64):
        return None
    return rw._emit("rotl_native", args, op.result.name, n=op.attrs["n"], lane=op.attrs["lane"])


def xor3_as_ternary_logic(rw, op, args):
    """xor(xor(a, b), c) -> VPTERNLOGD(a, b, c, 0x96) when the inner XOR has no
    other use: one instruction for three inputs."""
    if op.opcode != "xor":
        return None
    for side in (0, 1):
        lowered = rw.definition(args[side])
        if lowered is not None and lowered.opcode == "xor" and rw.source_uses.get(op.args[side]) == 1:
            a, b = lowered.args
            return rw._emit("ternlog", (a, b, args[1 - side]), op.result.name, imm=0x96)
    return None


TARGET = Target(
    name="avx512_gfni", bits=512, cflags=("-mavx512f", "-mavx512bw", "-mgfni"),
    cpu_features=("avx512f", "avx512bw", "gfni"),
    passes=(FUSION_PASS, (rules.rotate_bytes_by_shuffle, rotate_native, rules.affine_via_gfni),
            (xor3_as_ternary_logic,)),
    emulable=True,
    description="AVX-512 + GFNI gf2p8affineqb/gf2p8affineinvqb, 512-bit vectors")
