"""AVX-512 (F, BW) + GFNI: 512-bit vectors, GF2P8AFFINE(INV)QB and VPROLD."""

from . import rules
from .gfni_passes import FUSION_PASS
from .target import Target


def rotate_native(rw, op, args):
    """AVX-512F rotates 32/64-bit elements in one instruction (VPROLD/VPROLQ)."""
    if op.opcode != "rotl" or op.attrs["lane"] not in (32, 64):
        return None
    return rw._emit("rotl_native", args, op.result.name, n=op.attrs["n"], lane=op.attrs["lane"])


TARGET = Target(
    name="avx512_gfni", bits=512, cflags=("-mavx512f", "-mavx512bw", "-mgfni"),
    cpu_features=("avx512f", "avx512bw", "gfni"),
    passes=(FUSION_PASS, (rules.rotate_bytes_by_shuffle, rotate_native, rules.affine_via_gfni)),
    emulable=True,
    description="AVX-512 + GFNI gf2p8affineqb/gf2p8affineinvqb, 512-bit vectors")
