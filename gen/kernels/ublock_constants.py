"""Every constant the uBlock kernels use, derived from gen/specs/ublock.py.

The kernels hold a state half "spread": one nibble per byte, byte k = nibble k
of the half in the spec's numbering (high nibble of each data byte first), so
every nibble operation of the spec is a byte operation: the S-box a 16-entry
pshufb table, a rotation of 32-bit words a byte rotation of 8-byte words, PL/PR
a byte shuffle moving pairs of bytes.  A byte of the register may carry a
second block in its high nibble; the tables below come in a low and a high form.
"""

from ..linalg.shuffle import (LANE_BYTES, inverse_permutation, lane_permutation_mask, split_at_lane_swap,
                              widen_permutation)
from ..specs import ublock

DIRECTIONS = ("encrypt", "decrypt")
SIDES = ("left", "right")  # X0 (permuted by PL) and X1 (by PR)

NIBBLE_BITS = (len(ublock.SBOX) - 1).bit_length()
NIBBLES_PER_BYTE = 8 // NIBBLE_BITS
LOW_NIBBLE = (1 << NIBBLE_BITS) - 1
HIGH_NIBBLE = LOW_NIBBLE << NIBBLE_BITS
# A spec word (<<<_32 acts on it) spread one nibble per byte: this many bits.
SPREAD_WORD_BITS = 8 * len(ublock.nibble_rotation(0))


def check_direction(direction):
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


def nibble_mask(high):
    """Every byte's high (or low) nibble: one block of a packed pair."""
    return bytes([HIGH_NIBBLE if high else LOW_NIBBLE]) * LANE_BYTES


def sbox_tables(direction):
    """(low, high) pshufb tables of the S-box (decrypt: its inverse): a low
    nibble x gives S[x] in the low nibble, a (shifted down) high nibble x gives
    S[x] back in the high nibble, so the two lookups or together."""
    table = ublock.SBOX if check_direction(direction) == "encrypt" else ublock.inverse_sbox()
    return bytes(table), bytes(v << NIBBLE_BITS for v in table)


def spread_rotation(bits):
    """The left rotation of every SPREAD_WORD_BITS-bit element that is the
    spec's <<<_32 bits on spread words: output nibble i = input nibble i + m
    is output byte i = input byte i + m, a right rotation by m bytes of a
    little-endian element."""
    rotation = ublock.nibble_rotation(bits)
    m = rotation[0]
    if rotation != tuple((i + m) % len(rotation) for i in range(len(rotation))):
        raise ValueError(f"<<<_32 {bits} is not a rotation of the word's nibbles")
    return -8 * m % SPREAD_WORD_BITS


def spread_permutation(block_bits, side, direction):
    """PL or PR of a block_bits block (decrypt: the inverse) acting on a
    spread half: output byte j = input byte perm[j]."""
    table = ublock.PL if side == SIDES[0] else ublock.PR
    perm = table[block_bits]
    if check_direction(direction) == "decrypt":
        perm = inverse_permutation(perm)
    return widen_permutation(perm, NIBBLES_PER_BYTE)


def permutation_masks(block_bits, side, direction):
    """(in_lane, swapped) pshufb masks for PL/PR on a spread half.

    A 128-bit block's half is one 128-bit lane: one shuffle, swapped is None.
    A 256-bit block's half spans two lanes: in_lane moves the bytes that stay
    in their lane, swapped the others after a lane swap (algorithm 5)."""
    perm = spread_permutation(block_bits, side, direction)
    if len(perm) == LANE_BYTES:
        return lane_permutation_mask(perm), None
    return split_at_lane_swap(perm)
