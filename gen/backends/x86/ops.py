"""The x86 backend's own ops: single x86 instructions that its lowering rules
emit and no kernel writes.  The IR does not define them; importing this module
registers what each one computes (gen.ir.semantics.register_op), so the
interpreter runs lowered x86 programs bit for bit.  gen/backends/__init__.py
imports it: whatever lowers for an x86 target has it.

Each op, its meaning and its doc (what `_OPS` registers) are listed at the end.
"""

import numpy as np

from ...ir.interpreter import same_meaning_as
from ...ir.semantics import SHIFT_ROWS, aes_sbox_table, register_op
from ...linalg import gf2p8affineinvqb, gf2p8affineqb

_AES_SBOX = np.frombuffer(bytes(aes_sbox_table()), dtype=np.uint8)
_SHIFT_ROWS = np.array(SHIFT_ROWS)


def permute2b(builder, index, a, b, hint="perm"):
    """Emit VPERMI2B(index, a, b) into `builder` (a rewriter lowering for AVX-512 VBMI)."""
    return builder._emit("permute2b", (index, a, b), hint)


def _gf2p8affine(invert):
    """GF2P8AFFINE(INV)QB on a whole vector: each 8-byte group of a uses the
    qword at the same position of m (linalg's exact instruction models)."""
    model = gf2p8affineinvqb if invert else gf2p8affineqb

    def run(op, args):
        matrices = args[1].tobytes()
        qwords = [int.from_bytes(matrices[i:i + 8], "little") for i in range(0, len(matrices), 8)]
        return np.frombuffer(bytes(model(args[0].tobytes(), qwords, op.attrs["imm"])), dtype=np.uint8)
    return run


def _aesenclast(op, args):
    state = args[0].reshape(-1, 16)
    return _AES_SBOX[state[:, _SHIFT_ROWS]].reshape(-1) ^ args[1]


def _ternlog(op, args):
    a, b, c = args
    out = np.zeros_like(a)
    for index in range(8):
        if op.attrs["imm"] >> index & 1:
            out |= (a if index & 4 else ~a) & (b if index & 2 else ~b) & (c if index & 1 else ~c)
    return out


def _blendv(op, args):
    a, b, mask = args
    return np.where(mask & 0x80, b, a).astype(np.uint8)


def _permute2b(op, args):
    index, a, b = args
    return np.concatenate([a, b])[index & (2 * len(a) - 1)]


def _permute2q(op, args):
    index, a, b = (x.view("<u8") for x in args)
    return np.concatenate([a, b])[index & (2 * len(a) - 1)].view(np.uint8)


_OPS = (
    ("gf2p8affine", _gf2p8affine(False),
     "GF2P8AFFINEQB(a, m): every byte of a through the affine map whose matrix is m's qword at the "
     "same position and whose constant is imm (attrs: imm)"),
    ("gf2p8affineinv", _gf2p8affine(True),
     "GF2P8AFFINEINVQB(a, m): as gf2p8affine, on the byte's inverse in GF(2^8)/0x11B (attrs: imm)"),
    ("aesenclast", _aesenclast, "AESENCLAST(a, k) on every 128-bit block: ShiftRows, SubBytes, XOR k"),
    ("ternlog", _ternlog, "VPTERNLOGD(a, b, c): bitwise, result bit = bit (a<<2 | b<<1 | c) of imm (attrs: imm)"),
    ("blendv", _blendv, "PBLENDVB(a, b, m): per byte, b where m's byte has bit 7 set, else a"),
    ("permute2b", _permute2b, "VPERMI2B(i, a, b): per byte, the byte of a's then b's bytes (2 x bits/8) "
                              "that i's byte picks, modulo 2 x bits/8"),
    ("permute2q", _permute2q, "VPERMI2Q(i, a, b): per qword, the qword of a's then b's qwords (2 x bits/64) "
                              "that i's qword picks, modulo 2 x bits/64"),
    ("rotl_native", same_meaning_as("rotl"), "rotl in one instruction (AVX-512 VPROLD/VPROLQ; attrs: n, lane)"),
    ("shld_native", same_meaning_as("shld"),
     "shld in one instruction (AVX-512 VBMI2 VPSHLDD/VPSHLDW; attrs: n, lane)"),
)

# What each costs as (gen/ir/opcodes.KINDS).
_KINDS = {"gf2p8affine": "gfni", "gf2p8affineinv": "gfni", "aesenclast": "cipher", "permute2b": "shuffle",
          "permute2q": "shuffle"}

for _name, _fn, _doc in _OPS:
    register_op(_name, _fn, _doc, _KINDS.get(_name, "alu"),
                data_attrs=("imm",) if _name.startswith("gf2p8") else ())   # the matrix byte: data
