"""GF(2^128) as the block-cipher modes use it: the field of XTS's tweak
(multiplication by alpha = x), of CMAC's subkeys (dbl) and of GHASH, and the
ways the standards lay a field element out in 16 bytes.

Every mode here reduces by the same polynomial, x^128 + x^7 + x^2 + x + 1
(IEEE Std 1619-2018 section 5.2, GB/T 17964-2021's XTS, NIST SP 800-38B
section 5.3 with R_128 = 0^120 || 10000111, NIST SP 800-38D section 6.3 with
R = 11100001 || 0^120).  GHASH's blocks (SP 800-38D 6.3: "the leftmost bit is
x^0") have GB's layout: x^i is bit 7 - i mod 8 of byte i // 8.  Irreducibility
of a degree-128 polynomial is beyond validate.py's trial division: gen/linalg's
Field refuses a reducible one, and the tests assert it.  They differ only in where the
coefficient of x^i sits among the 16 bytes: the `Convention`s below, each
with the source it is taken from (docs/derivations.md quotes the rules).
The constants that follow from a convention (0x87 or 0xE1 in a given byte,
shuffle masks) are derived from these facts by gen/kernels/gf128_double.py.
"""

from dataclasses import dataclass

DEGREE = 128
POLY_EXPONENTS = (128, 7, 2, 1, 0)
POLY = sum(1 << e for e in POLY_EXPONENTS)   # bit i is the coefficient of x^i (gen/linalg/bits.py)
REDUCTION = POLY ^ 1 << DEGREE               # x^128 = x^7 + x^2 + x + 1 in the field
BLOCK_BYTES = DEGREE // 8


@dataclass(frozen=True)
class Convention:
    """Where a standard puts the coefficient of x^i in its 16 bytes: the
    byte (`byte_order` "little": x^0..x^7 in byte 0, x^120..x^127 in byte 15;
    "big": the reverse) and the bit of that byte (`low_bit_first`: the lower
    power in the less significant bit, bit 0 holding x^(8j); otherwise bit 7)."""

    name: str
    byte_order: str
    low_bit_first: bool
    source: str

    def __post_init__(self):
        if self.byte_order not in ("little", "big"):
            raise ValueError(f"convention {self.name}: byte order {self.byte_order!r} is neither 'little' nor 'big'")

    def position(self, degree):
        """(byte, bit) holding the coefficient of x^degree."""
        if not 0 <= degree < DEGREE:
            raise ValueError(f"convention {self.name}: x^{degree} is no coefficient of an element")
        group, within = divmod(degree, 8)
        byte = group if self.byte_order == "little" else BLOCK_BYTES - 1 - group
        return byte, within if self.low_bit_first else 7 - within


# XTS-AES: "a left shift of each byte by one bit with carry propagating from
# one byte to the next", the carry out of byte 15 folding 0x87 into byte 0.
IEEE = Convention("ieee", "little", True, "IEEE Std 1619-2018 section 5.2 (multiplication by alpha)")
# SM4-XTS of GB/T 17964-2021: in each byte "the rightmost bit is the most
# significant", so multiplying by x shifts each byte right, the carry from a
# byte's bit 0 entering the next byte's bit 7, and byte 15's bit 0 folds 0xE1
# into byte 0 (OpenSSL's xts128gb.c, gmsm's mul2 with isGB).
GB = Convention("gb", "little", False, "GB/T 17964-2021 XTS, as OpenSSL 3.2's xts_standard \"GB\" and gmsm implement it")
# CMAC: the block is one big-endian 128-bit string, MSB the highest power;
# dbl(L) = L << 1, XORed with R_128 (0x87 in the last byte) when MSB(L) is 1.
CMAC = Convention("cmac", "big", True, "NIST SP 800-38B section 6.1, RFC 4493 section 2.3")

CONVENTIONS = {c.name: c for c in (IEEE, GB, CMAC)}
XTS_CONVENTIONS = (IEEE, GB)
