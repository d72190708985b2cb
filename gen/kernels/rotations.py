"""Linear layers made of 32-bit word rotations: x ^ rotl(x, r1) ^ rotl(x, r2) ...,
shared by the word-oriented kernels (SM4 word-sliced, ZUC's L1 and L2)."""

from collections import defaultdict


def rotation_plan(rotations):
    """Group L's rotations by amount mod 8: rotl(y,a)^rotl(y,a+8)^... =
    rotl(y ^ rotl(y,8) ^ ..., a), trading bit rotations for byte rotations
    (SM4, ZUC L1: rotl(y ^ rotl(y,8) ^ rotl(y,16), 2) ^ rotl(y,24))."""
    groups = defaultdict(list)
    for r in rotations:
        groups[r % 8].append(r)
    return [(base, [r - base for r in sorted(members)]) for base, members in sorted(groups.items())]


def rotation_sum(b, y, amounts, hint, known=None):
    """The XOR of rotl(y, a) for a in `amounts` (0 is y itself), by
    rotation_plan.  `known` maps rotation amounts to values the caller already
    has (ZUC gets rotl(L1's input, 16) from one select of the words it was
    made from), so that they are not rotated again."""
    rotated = {0: y, **(known or {})}

    def rotl(offset):
        if offset not in rotated:
            rotated[offset] = b.rotl(y, offset, 32, f"{hint}r{offset}")
        return rotated[offset]

    parts = []
    for base, offsets in rotation_plan(amounts):
        inner = [rotl(off) for off in offsets]
        if base == 0:
            parts.extend(inner)
            continue
        group = b.xor_all(inner, f"{hint}g") if len(inner) > 1 else inner[0]
        parts.append(b.rotl(group, base, 32, f"{hint}r{base}"))
    return b.xor_all(parts, hint)


def linear_layer(b, y, rotations, hint):
    """y ^ rotl(y, r1) ^ rotl(y, r2) ... for the rotations of L (0 not listed)."""
    return rotation_sum(b, y, (0,) + tuple(rotations), hint)
