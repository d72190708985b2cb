"""Multiplication by x in GF(2^128), as each standard writes it: the
references the IR programs of gf128_double.py are tested against.

Each function follows its standard's own rule, byte by byte or on one
integer as the standard describes it, so that it shares no code with the
programs (which work on 64-bit halves through a layout derived from
gen/specs/gf128.py).  The constants come from the polynomial, not from the
standards' hex: 0x87 is x^7 + x^2 + x + 1 (the polynomial less x^128), and
GB's 0xE1 is the same byte with its bits reversed.
"""

from ..specs import gf128

REDUCTION = gf128.REDUCTION
if REDUCTION >> 8:
    raise AssertionError("the reduction of x^128 must fit one byte for the byte-wise rules")
REDUCTION_REFLECTED = int(f"{REDUCTION:08b}"[::-1], 2)   # the same byte, bit i <-> bit 7 - i


def xts_ieee_times_alpha(tweak):
    """IEEE Std 1619 section 5.2: each byte doubled, the carry of byte i - 1
    added to byte i; a carry out of byte 15 XORs the reduction into byte 0."""
    x = bytes(tweak)
    y = bytearray(16)
    for i in range(16):
        y[i] = (2 * x[i]) % 256
        if i > 0 and x[i - 1] > 127:
            y[i] += 1
    if x[15] > 127:
        y[0] ^= REDUCTION
    return bytes(y)


def xts_gb_times_alpha(tweak):
    """GB/T 17964-2021 (OpenSSL's xts128gb.c, gmsm's mul2 for GB): each byte
    halved, bit 0 of byte i - 1 entering bit 7 of byte i; bit 0 of byte 15
    XORs the reflected reduction into byte 0."""
    x = bytes(tweak)
    y = bytearray(16)
    for i in range(16):
        y[i] = x[i] >> 1
        if i > 0 and x[i - 1] & 1:
            y[i] |= 0x80
    if x[15] & 1:
        y[0] ^= REDUCTION_REFLECTED
    return bytes(y)


def cmac_dbl(block):
    """SP 800-38B section 6.1 / RFC 4493 section 2.3: L << 1 as one big-endian
    128-bit string, XORed with R_128 = 0^120 || REDUCTION when MSB(L) is 1."""
    n = int.from_bytes(block, "big")
    doubled = (n << 1) & ((1 << 128) - 1)
    if n >> 127:
        doubled ^= REDUCTION
    return doubled.to_bytes(16, "big")


TIMES_X = {"ieee": xts_ieee_times_alpha, "gb": xts_gb_times_alpha, "cmac": cmac_dbl}


def sequence(convention, value, count):
    """value, value*x, ..., value*x^(count-1) in `convention` (its name)."""
    times_x = TIMES_X[convention]
    out = [bytes(value)]
    while len(out) < count:
        out.append(times_x(out[-1]))
    return out


def cmac_subkeys(l_block):
    """K1 = dbl(L), K2 = dbl(K1) (SP 800-38B section 6.1 steps 3-4)."""
    k1 = cmac_dbl(l_block)
    return k1, cmac_dbl(k1)
