"""The AES-NI (and AArch64 AESE) form of ``y = M·inv(x) ⊕ c`` (inversion in the AES field).

Why: where GFNI is missing, AESENCLAST is the only instruction that inverts in
GF(2^8).  It computes ``ShiftRows(SubBytes(state)) ⊕ key`` with
``SubBytes(x) = A_aes·inv(x) ⊕ c_aes``.  Three adjustments turn it into a plain
byte-wise ``M·inv(x) ⊕ c``:

* ``pre_shuffle``: apply inverse ShiftRows first (a pshufb mask), so the
  instruction's ShiftRows puts every byte back where it was;
* ``round_key``: the key byte XORed after SubBytes.  The default cancels
  ``c_aes`` (key byte = ``c_aes``) so the instruction yields ``A_aes·inv(x)``;
  any other byte ``k`` works too, leaving ``A_aes·inv(x) ⊕ (c_aes ⊕ k)``;
* ``post``: ``M·A_aes⁻¹`` with the constant chosen so the whole is
  ``M·inv(x) ⊕ c`` (for a non-cancelling key it absorbs ``c_aes ⊕ k``).

AArch64's AESE differs in where the key goes: ``SubBytes(ShiftRows(state ⊕
key))``, the key XORed *before* SubBytes, so no key can cancel ``c_aes``.
With the key 0 both instructions compute ``SubBytes(ShiftRows(state))``, and
the same pre-shuffle and post map make it ``M·inv(x) ⊕ c``: ``aese_form`` is
``aesni_form`` with ``key_byte = 0``, where ``post`` absorbs ``A_aes`` and
``c_aes`` both.

No cipher is known here: the AES affine part and ShiftRows come in as
arguments.  The inversion is the one AESENCLAST and AESE do, so ``M, c`` must come from
a decomposition over the AES field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .bits import AffineMap, BitMatrix
from .shuffle import check_permutation, inverse_permutation, permutation_mask


@dataclass(frozen=True)
class AesniForm:
    """``post(aesenclast(pshufb(x, pre_shuffle), round_key16)) = M·inv(x) ⊕ c`` per byte."""

    pre_shuffle: bytes
    round_key: int
    post: AffineMap

    @property
    def round_key16(self) -> bytes:
        return bytes([self.round_key]) * 16


def aesni_form(target: AffineMap, aes_linear: BitMatrix, aes_constant: int,
               shift_rows: Sequence[int], key_byte: int | None = None) -> AesniForm:
    """AES-NI form of ``x ↦ target.linear·inv(x) ⊕ target.constant``.

    ``shift_rows[j]`` is the input byte that ShiftRows moves to byte ``j``.
    ``key_byte`` defaults to ``aes_constant`` (the cancelling key)."""
    if key_byte is None:
        key_byte = aes_constant
    if not 0 <= key_byte <= 0xFF:
        raise ValueError(f"key byte {key_byte:#x} out of range")
    sr = check_permutation(shift_rows, 16)
    post_linear = target.linear @ aes_linear.inverse()
    residue = aes_constant ^ key_byte  # what AESENCLAST leaves on top of A_aes·inv(x)
    post = AffineMap(post_linear, target.constant ^ post_linear.apply(residue))
    return AesniForm(permutation_mask(inverse_permutation(sr)), key_byte, post)


def aesenclast(state16: bytes, key16: bytes, sbox: Sequence[int], shift_rows: Sequence[int]) -> bytes:
    """Model of AESENCLAST: ``ShiftRows(SubBytes(state)) ⊕ key``;
    output byte ``j`` is ``sbox[state[shift_rows[j]]] ^ key[j]``."""
    if len(state16) != 16 or len(key16) != 16:
        raise ValueError("aesenclast works on 16-byte state and key")
    return bytes(sbox[state16[shift_rows[j]]] ^ key16[j] for j in range(16))


def aese_form(target: AffineMap, aes_linear: BitMatrix, aes_constant: int,
              shift_rows: Sequence[int]) -> AesniForm:
    """The form of ``x ↦ target.linear·inv(x) ⊕ target.constant`` on AESE:
    ``post(aese(pshufb(x, pre_shuffle), 0))``, i.e. TBL by inverse ShiftRows
    (every index is below 16, where TBL and pshufb agree),
    AESE with the key 0, then the outer map with SubBytes' matrix and constant
    folded in.  AESE XORs its key before SubBytes, where it cannot cancel
    ``aes_constant``; with the key 0 it is AESENCLAST's form for that key."""
    return aesni_form(target, aes_linear, aes_constant, shift_rows, key_byte=0)


def aese(state16: bytes, key16: bytes, sbox: Sequence[int], shift_rows: Sequence[int]) -> bytes:
    """Model of AArch64's AESE: ``SubBytes(ShiftRows(state ⊕ key))``;
    output byte ``j`` is ``sbox[state[shift_rows[j]] ^ key[shift_rows[j]]]``."""
    if len(state16) != 16 or len(key16) != 16:
        raise ValueError("aese works on 16-byte state and key")
    return bytes(sbox[state16[shift_rows[j]] ^ key16[shift_rows[j]]] for j in range(16))
