"""Byte permutations and word rotations as shuffle masks, plus a pshufb model.

Why: byte moves (ShiftRows, byte swaps, rotations by multiples of 8 bits) are
one in-lane shuffle on every SIMD target; the masks are derived here once.

Conventions: a permutation ``perm`` means *output byte j = input byte
perm[j]*; a mask is 16 bytes per 128-bit lane, each byte 0..15 (the source
byte) or ``ZERO_INDEX`` = 0x80, which writes zero (``None`` in a permutation).
That is the domain where x86's pshufb and AArch64's TBL agree, the meaning of
the IR's 16-entry lookup; every mask made here stays in it.  Word rotations
are left rotations (``rotl``); a negative amount rotates right.

``pshufb`` is the exact x86 model (it also reads indices 16..0x7F, as
``i & 15``), for code that reasons about x86 instructions themselves.
"""

from __future__ import annotations

from typing import Optional, Sequence

# The neutral zero index: pshufb zeroes a byte whose index has bit 7 set,
# TBL one whose index is 16 or more; 0x80 is both.
ZERO_INDEX = 0x80


def check_permutation(perm: Sequence[int], n: int | None = None) -> tuple[int, ...]:
    """Return ``perm`` as a tuple if it is a permutation of ``0..n-1`` (``n``
    defaults to ``len(perm)``); ``ValueError`` naming the first problem otherwise."""
    p = tuple(perm)
    if n is None:
        n = len(p)
    if len(p) != n:
        raise ValueError(f"permutation has {len(p)} entries, expected {n}")
    first: dict[int, int] = {}
    for j, v in enumerate(p):
        if not isinstance(v, int) or not 0 <= v < n:
            raise ValueError(f"permutation entry {j} = {v!r} is outside 0..{n - 1}")
        if v in first:
            raise ValueError(f"not a permutation: {v} appears at positions {first[v]} and {j}")
        first[v] = j
    return p


def is_permutation(perm: Sequence[int], n: int | None = None) -> bool:
    """``True`` iff ``perm`` is a permutation of ``0..n-1`` (see ``check_permutation`` for the reason when not)."""
    try:
        check_permutation(perm, n)
    except ValueError:
        return False
    return True


def inverse_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    """``inv`` with ``perm[inv[j]] == j`` and ``inv[perm[j]] == j``."""
    p = check_permutation(perm)
    inv = [0] * len(p)
    for j, v in enumerate(p):
        inv[v] = j
    return tuple(inv)


def permutation_mask(perm: Sequence[Optional[int]]) -> bytes:
    """Shuffle mask for one 128-bit lane: output byte j = input byte perm[j]
    (``None`` = zero, ``ZERO_INDEX``).  Repeats are allowed (a broadcast is a valid shuffle)."""
    if len(perm) != 16:
        raise ValueError(f"a shuffle mask has 16 entries, got {len(perm)}")
    out = []
    for j, v in enumerate(perm):
        if v is None:
            out.append(ZERO_INDEX)
        elif isinstance(v, int) and 0 <= v < 16:
            out.append(v)
        else:
            raise ValueError(f"mask entry {j} = {v!r} is not a byte index 0..15 or None")
    return bytes(out)


def compose_masks(first: bytes, second: bytes) -> bytes:
    """One mask doing ``pshufb(pshufb(x, first), second)``: output byte j is
    ``x[first[second[j]]]`` (zero if either step writes zero)."""
    if len(first) != 16 or len(second) != 16:
        raise ValueError("compose_masks works on 16-byte masks")
    return bytes(ZERO_INDEX if s & 0x80 or first[s & 15] & 0x80 else first[s & 15] & 15
                 for s in second)


def _check_word_bytes(word_bytes: int) -> None:
    if word_bytes not in (1, 2, 4, 8, 16):
        raise ValueError(f"word size must be 1, 2, 4, 8 or 16 bytes, got {word_bytes}")


def rotate_words_mask(word_bytes: int, bits: int, little_endian: bool = True) -> bytes:
    """Shuffle mask rotating each ``word_bytes``-byte word left by ``bits``
    (a multiple of 8; ``ValueError`` otherwise).  ``little_endian`` says how
    a word's bytes sit in memory (x86 lanes: little-endian)."""
    _check_word_bytes(word_bytes)
    if bits % 8:
        raise ValueError(f"a byte shuffle can only rotate by a multiple of 8 bits, got {bits}")
    m = (bits // 8) % word_bytes
    perm = []
    for j in range(16):
        base, k = j - j % word_bytes, j % word_bytes
        src = (k - m) % word_bytes if little_endian else (k + m) % word_bytes
        perm.append(base + src)
    return permutation_mask(perm)


def byteswap_mask(word_bytes: int) -> bytes:
    """Shuffle mask reversing the bytes of each ``word_bytes``-byte word."""
    _check_word_bytes(word_bytes)
    return permutation_mask([j - j % word_bytes + (word_bytes - 1 - j % word_bytes) for j in range(16)])


def pshufb(table: bytes, index: bytes) -> bytes:
    """Exact model of x86's (v)pshufb, lane by lane for 16·k bytes: out = 0 if
    index bit 7 is set, else ``table[lane + (index & 15)]`` (so indices
    16..0x7F wrap, which the IR's neutral lookup refuses)."""
    if len(table) != len(index) or len(table) % 16:
        raise ValueError("pshufb operands must have equal length, a multiple of 16 bytes")
    return bytes(0 if i & 0x80 else table[(k & ~15) + (i & 15)] for k, i in enumerate(index))


LANE_BYTES = 16


def widen_permutation(perm: Sequence[int], factor: int) -> tuple[int, ...]:
    """The permutation of ``perm``'s elements seen on ``factor`` sub-elements
    each: output sub-element ``factor*j + k`` = input sub-element
    ``factor*perm[j] + k``.  Why: a byte permutation of data held one nibble
    per byte moves pairs of bytes."""
    p = check_permutation(perm)
    if factor < 1:
        raise ValueError(f"widening factor must be at least 1, got {factor}")
    return tuple(factor * v + k for v in p for k in range(factor))


def lane_permutation_mask(perm: Sequence[Optional[int]]) -> bytes:
    """Shuffle mask of any multiple of 16 bytes: output byte j = input byte
    perm[j] (``None`` = zero), each source in j's own 128-bit lane, which is
    all an in-lane shuffle can reach; ``ValueError`` for a source in another lane."""
    if len(perm) % LANE_BYTES:
        raise ValueError(f"a shuffle mask has a multiple of {LANE_BYTES} entries, got {len(perm)}")
    masks = []
    for base in range(0, len(perm), LANE_BYTES):
        lane = []
        for j in range(base, base + LANE_BYTES):
            v = perm[j]
            if v is not None and not (isinstance(v, int) and base <= v < base + LANE_BYTES):
                raise ValueError(f"entry {j} = {v!r} is not in its 128-bit lane {base}..{base + LANE_BYTES - 1}")
            lane.append(None if v is None else v - base)
        masks.append(permutation_mask(lane))
    return b"".join(masks)


def lane_swap_partner(position: int) -> int:
    """Where byte ``position`` lands when the two 128-bit lanes of every
    256-bit block are exchanged (VPERMQ 0x4E, VSHUFI32X4 0xB1)."""
    return position ^ LANE_BYTES


def split_at_lane_swap(perm: Sequence[int]) -> tuple[bytes, bytes]:
    """Masks ``(in_lane, swapped)`` with
    ``pshufb(x, in_lane) | pshufb(swap(x), swapped)`` = x permuted by ``perm``
    (output byte j = x[perm[j]]), ``swap`` exchanging the 128-bit lanes of each
    256-bit block: a permutation pshufb cannot do alone, as two shuffles and a
    lane swap (the uBlock AVX2 paper's algorithm 5, its front/rear masks).
    ``perm`` covers whole 256-bit blocks and keeps every byte in its own block;
    each mask zeroes the bytes the other one supplies, so | and ^ both combine them."""
    p = tuple(perm)
    block = 2 * LANE_BYTES
    if not p or len(p) % block:
        raise ValueError(f"a lane-swap split needs whole {block}-byte blocks, got {len(p)} entries")
    for j, v in enumerate(p):
        if not (isinstance(v, int) and j - j % block <= v < j - j % block + block):
            raise ValueError(f"entry {j} = {v!r} leaves its {block}-byte block")
    check_permutation(p)
    same = [v if v // LANE_BYTES == j // LANE_BYTES else None for j, v in enumerate(p)]
    other = [None if v is not None else lane_swap_partner(p[j]) for j, v in enumerate(same)]
    return lane_permutation_mask(same), lane_permutation_mask(other)


def deinterleave_mask() -> bytes:
    """Shuffle mask taking each lane's even bytes to its low 8 bytes and its odd
    bytes to its high 8: undoes the byte interleave of unpacklo/unpackhi_epi8
    (after it, a 64-bit unpack of two such registers gives back the inputs)."""
    return permutation_mask([*range(0, LANE_BYTES, 2), *range(1, LANE_BYTES, 2)])


def byte_xor_shuffles(sources: Sequence[Sequence[int]], n: int = 16) -> tuple[tuple[Optional[int], ...], ...]:
    """A byte-wise linear map, output byte i = XOR of input bytes sources[i], as
    few partial permutations as its busiest byte needs (output byte j of
    permutation k = input byte perm_k[j], or None for zero): the map is the XOR of
    the shuffled copies.  That many suffice by König's edge-colouring theorem;
    the colouring here flips alternating paths (each input byte and each output
    byte in at most one edge of a colour)."""
    edges = [(i, j) for i, row in enumerate(sources) for j in row]
    if len(set(edges)) != len(edges) or any(not 0 <= x < n for e in edges for x in e) or len(sources) != n:
        raise ValueError(f"sources must list distinct input bytes 0..{n - 1} for each of {n} output bytes")
    colours = max([len(row) for row in sources] + [sum(j == x for _, j in edges) for x in range(n)] + [0])
    out_colour: list[dict[int, int]] = [{} for _ in range(n)]   # output byte -> colour -> input byte
    in_colour: list[dict[int, int]] = [{} for _ in range(n)]    # input byte -> colour -> output byte
    for i, j in edges:
        a = next(c for c in range(colours) if c not in out_colour[i])
        b = next(c for c in range(colours) if c not in in_colour[j])
        if a != b:
            # Flip colours a and b along the path from input j that alternates a, b, a, ...
            path, node, side, colour = [], j, "in", a
            while True:
                table = in_colour if side == "in" else out_colour
                if colour not in table[node]:
                    break
                nxt = table[node][colour]
                path.append((node, nxt, side, colour) if side == "in" else (nxt, node, "in", colour))
                node, side, colour = nxt, "out" if side == "in" else "in", b if colour == a else a
            for jj, ii, _, c in path:
                del in_colour[jj][c], out_colour[ii][c]
            for jj, ii, _, c in path:
                c2 = b if c == a else a
                in_colour[jj][c2], out_colour[ii][c2] = ii, jj
        out_colour[i][a], in_colour[j][a] = j, i
    return tuple(tuple(out_colour[i].get(c) for i in range(n)) for c in range(colours))
