"""The AArch64 backend's own ops: single A64 instructions that its lowering
rules emit and no kernel writes.  Importing this module registers what each
computes (gen.ir.semantics.register_op), so the interpreter runs lowered
AArch64 programs bit for bit; gen/backends/aarch64/__init__.py imports it."""

import numpy as np

from ...ir.interpreter import same_meaning_as
from ...ir.semantics import SHIFT_ROWS, aes_sbox_table, register_op

_AES_SBOX = np.frombuffer(bytes(aes_sbox_table()), dtype=np.uint8)
_SHIFT_ROWS = np.array(SHIFT_ROWS)
_BIT_REVERSED = np.array([int(f"{x:08b}"[::-1], 2) for x in range(256)], dtype=np.uint8)


def _aese(op, args):
    """AESE: AddRoundKey first, then SubBytes and ShiftRows (which commute)."""
    state = (args[0] ^ args[1]).reshape(-1, 16)
    return _AES_SBOX[state[:, _SHIFT_ROWS]].reshape(-1)


def _lanes(x, lane):
    return x.view({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[lane])


def _rev(op, args):
    """REV: `element`-byte elements reversed within every `group`-byte group."""
    group, element = op.attrs["group"], op.attrs["element"]
    x = args[0].reshape(-1, group // element, element)
    return x[:, ::-1, :].reshape(-1).copy()


def _sli(op, args):
    """SLI: b shifted left by n, inserted over a (a keeps its low n bits)."""
    n, lane = op.attrs["n"], op.attrs["lane"]
    a, b = _lanes(args[0].copy(), lane), _lanes(args[1].copy(), lane)
    dtype = a.dtype.type
    low = dtype((1 << n) - 1)
    return ((b << dtype(n)) | (a & low)).view(np.uint8)


def _trn(op, args):
    """TRN1 (half 1) / TRN2 (half 2) on `lane`-bit elements: the even (odd)
    elements of a and b, interleaved: (a_0, b_0, a_2, b_2, ...) or (a_1, b_1, ...)."""
    k, size = op.attrs["half"] - 1, op.attrs["lane"] // 8
    a, b = (x.reshape(-1, 2, size) for x in args)
    return np.stack((a[:, k], b[:, k]), axis=1).reshape(-1).copy()


_OPS = (
    ("aese", _aese, "AESE(a, k) on every 128-bit block: XOR k, then SubBytes and ShiftRows"),
    ("sli", _sli, "SLI(a, b): per `lane`-bit element, (b << n) | (a & (2^n - 1)) (attrs: n, lane)"),
    ("rev", _rev, "REV16/32/64: `element`-byte elements reversed within every `group`-byte group "
                  "(attrs: group, element)"),
    ("sm4e", same_meaning_as("sm4_rounds4"), "SM4E(x, k) (FEAT_SM4): sm4_rounds4 in one instruction"),
    ("eor3", lambda op, args: args[0] ^ args[1] ^ args[2], "EOR3(a, b, c) (FEAT_SHA3): a ^ b ^ c"),
    ("bsl", same_meaning_as("select"), "BSL(m, a, b): select in one instruction, b where m is 1, a where 0"),
    ("rbit", lambda op, args: _BIT_REVERSED[args[0]], "RBIT: the bits of every byte reversed (bit i to bit 7 - i)"),
    ("trn", _trn, "TRN1/TRN2(a, b): the even (half 1) or odd (half 2) `lane`-bit elements of a and b, "
                  "interleaved (attrs: half, lane)"),
)

# What each costs as (gen/ir/opcodes.KINDS).
_KINDS = {"aese": "cipher", "sm4e": "cipher", "rev": "shuffle", "trn": "shuffle", "rbit": "shuffle"}

for _name, _fn, _doc in _OPS:
    register_op(_name, _fn, _doc, _KINDS.get(_name, "alu"))
