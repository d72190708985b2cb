"""GHASH, GCM's universal hash (NIST SP 800-38D, sections 6.3 and 6.4): what
it is.  Nothing here is computed for speed.

Conventions, defined here once:

* A block is 16 bytes.  As an element of GF(2^128), bit i of the block's bit
  string is the coefficient of x^i, and the bit string starts with the most
  significant bit of byte 0 (SP 800-38D 6.3: "the leftmost bit is x^0"): the
  coefficient of x^i is bit 7 - i mod 8 of byte i // 8.
* The field is GF(2)[x] / (x^128 + x^7 + x^2 + x + 1), FIELD_POLY below with
  bit i the coefficient of x^i (gen/linalg/bits.py's order).
* GHASH_H(X_1 .. X_m) = Y_m with Y_0 = 0 and Y_i = (Y_(i-1) xor X_i) * H;
  H = E_K(0^128) is the block cipher's, not GHASH's.

Irreducibility of a degree-128 polynomial is beyond validate.py's trial
division; the generator checks it with gen/linalg (Field refuses a reducible
polynomial) and tests/test_ghash.py asserts it.
"""

from .validate import SpecError

BLOCK_BYTES = 16
FIELD_DEGREE = 128
# x^128 + x^7 + x^2 + x + 1 (SP 800-38D 6.3: R = 11100001 || 0^120 is its low part, bit-reflected)
FIELD_POLY = 1 << FIELD_DEGREE | 1 << 7 | 1 << 2 | 1 << 1 | 1

if FIELD_POLY >> FIELD_DEGREE != 1:
    raise SpecError(f"GHASH field polynomial {FIELD_POLY:#x} is not of degree {FIELD_DEGREE}")
