"""The fixed-function parts of the instructions backends lower onto, and the
registry of backend-private ops.

Instructions such as x86's GF2P8AFFINEINVQB and AESENCLAST (or AArch64's AESE)
invert in AES's field and apply AES's S-box and ShiftRows: facts taken from the
AES spec (the one place AES is described) and computed with linalg.  Backends
read them from here when they lower onto those instructions.

A backend may also lower onto ops of its own, which no kernel writes (x86's
ternary logic, GFNI, ...).  The IR knows no backend: the backend registers each
such op's meaning here with `register_op`, and the interpreter runs it from the
registry, so a lowered program is checked bit for bit like any other once the
backend's module is imported.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from ..linalg import BitMatrix, Field
from ..specs import aes, sm4
from .opcodes import KIND, KINDS, NEUTRAL

SHIFT_ROWS = aes.SHIFT_ROWS
AES_SBOX_CONSTANT = aes.SBOX_AFFINE_CONSTANT


@lru_cache(maxsize=None)
def aes_sbox_linear():
    """The linear part of SubBytes' affine map, as a BitMatrix."""
    rows = [sum(1 << src for src in aes.sbox_affine_bit_sources(i)) for i in range(8)]
    return BitMatrix(tuple(rows), 8)


@lru_cache(maxsize=None)
def gf_inverse_table():
    return Field(aes.FIELD_POLY).inverse_table()


@lru_cache(maxsize=None)
def aes_sbox_table():
    linear = aes_sbox_linear()
    return tuple(linear.apply(y) ^ AES_SBOX_CONSTANT for y in gf_inverse_table())


def _sm4_t(word):
    """SM4's T = L(tau(word)), from the spec's S-box and rotations."""
    b = int.from_bytes(bytes(sm4.SBOX[byte] for byte in word.to_bytes(4, "big")), "big")
    out = b
    for r in sm4.L_ROTATIONS:
        out ^= (b << r | b >> (32 - r)) & 0xFFFFFFFF
    return out


def sm4_rounds4(state, keys):
    """The fixed function of SM4E / VSM4RNDS4: four SM4 rounds on the state
    (X0, X1, X2, X3) with round keys k0..k3 (integers); returns (X4, ..., X7)."""
    x = list(state)
    for k in keys:
        x.append(x[-4] ^ _sm4_t(x[-3] ^ x[-2] ^ x[-1] ^ k))
    return tuple(x[4:])


@dataclass(frozen=True)
class PrivateOp:
    """A backend-private op: `fn(op, args)` gives the bytes `op` computes from
    its operands' bytes (NumPy uint8 vectors); `doc` says what it means."""

    name: str
    fn: Callable
    doc: str
    kind: str = "alu"   # opcodes.KINDS: what it costs as (shuffle, alu, gfni, cipher ...)
    data_attrs: tuple = ()  # attrs that hold data (a matrix in an immediate), not the op's structure


_PRIVATE_OPS = {}


def register_op(name, fn, doc, kind="alu", data_attrs=()):
    """Give the backend-private opcode `name` its meaning: `fn(op, args)`
    returns the result's bytes, `doc` describes it (as opcodes.py does the
    IR's own ops), `kind` says what kind of operation it is (opcodes.KINDS),
    `data_attrs` which of its attrs are data rather than structure (GFNI's
    matrix immediate: programs that differ there alone are the same code
    but for constants).
    A name the IR already defines, or one registered with another function,
    is a ValueError: one opcode, one meaning."""
    if name in NEUTRAL:
        raise ValueError(f"register_op: {name!r} is an IR opcode (opcodes.py), not a backend's own")
    if not doc:
        raise ValueError(f"register_op: {name!r} needs a doc saying what it computes")
    if kind not in KINDS:
        raise ValueError(f"register_op: {name!r}: kind {kind!r} is none of {KINDS}")
    known = _PRIVATE_OPS.get(name)
    if known is not None and known.fn is not fn:
        raise ValueError(f"register_op: {name!r} is already registered with another meaning")
    _PRIVATE_OPS[name] = PrivateOp(name, fn, doc, kind, tuple(data_attrs))


def data_attrs(opcode):
    """The attrs of `opcode` that hold data, not structure: a constant's bytes
    and notes, a backend op's immediate matrix (register_op's data_attrs)."""
    if opcode == "const":
        return ("data", "note", "label")
    private = _PRIVATE_OPS.get(opcode)
    return private.data_attrs if private is not None else ()


def op_kind(opcode):
    """What kind of operation `opcode` is (opcodes.KINDS), the IR's or a backend's own."""
    if opcode in KIND:
        return KIND[opcode]
    private = _PRIVATE_OPS.get(opcode)
    if private is None:
        raise ValueError(f"op_kind: {opcode!r} is no target-level opcode (abstract, or not registered)")
    return private.kind


def private_op(name):
    """The registered PrivateOp called `name`, or None."""
    return _PRIVATE_OPS.get(name)


def private_ops():
    """Every registered backend-private op: name -> PrivateOp."""
    return dict(_PRIVATE_OPS)
